//go:build ignore

// Command int32 exits 0 when it runs as a 32-bit program: .ci/run uses it
// to learn whether this machine can run the 32-bit tests.
package main

import (
	"math/bits"
	"os"
)

func main() {
	if bits.UintSize != 32 {
		os.Exit(1)
	}
}
