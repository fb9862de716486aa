package cli

import "os"

// LongTests reports whether the long cases run in full
// (LOOPBREAKER_LONG_TESTS set, as .ci/run sets it): the crash tests' 200
// killed calls, the organisation of 1,000 pull requests, the bounds that
// take thousands of files or a 40 MiB log. The README's test command runs
// each on a smaller scale, or skips it. Exported for the tests of
// package cli_test.
func LongTests() bool { return os.Getenv("LOOPBREAKER_LONG_TESTS") != "" }
