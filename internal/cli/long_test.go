package cli_test

import "os"

// longTests reports whether the long cases run in full
// (LOOPBREAKER_LONG_TESTS set, as .ci/run sets it): the crash tests' 200
// killed calls and the bounds that take thousands of files. The README's
// test command runs each of them on a smaller scale.
func longTests() bool { return os.Getenv("LOOPBREAKER_LONG_TESTS") != "" }
