// Package policy holds loopbreaker's thresholds and rules: the Policy type,
// strict TOML loading and validation, phase and profile overrides, and the
// built-in policies (default, ralph, tdd, profiles, strict) embedded from
// the TOML files beside this package.
package policy
