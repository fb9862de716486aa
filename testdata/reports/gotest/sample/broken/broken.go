// Package broken does not compile.
package broken

// Broken refers to a name that does not exist.
func Broken() int { return undefinedName }
