//go:build !unix

package checkout

// Own does nothing where files have no numeric owner (Windows): a Docker
// action runs on Linux only.
func Own(workspace string, paths ...string) error { return nil }
