package setup

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if os.Getenv("SAMPLE_SETUP") == "" {
		panic("setup failed: SAMPLE_SETUP is not set")
	}
	os.Exit(m.Run())
}

func TestNeverRuns(t *testing.T) {}
