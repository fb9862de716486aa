package lazyre

import (
	"sync"
	"testing"
)

func TestNewCompilesOnceOnFirstUse(t *testing.T) {
	t.Parallel()
	re := New(`^a+b$`)
	var wg sync.WaitGroup
	got := make([]bool, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = re().MatchString("aaab")
		}()
	}
	wg.Wait()
	for i, ok := range got {
		if !ok {
			t.Errorf("goroutine %d: no match", i)
		}
	}
	if first, second := re(), re(); first != second {
		t.Error("compiled twice")
	}
}

func TestNewPanicsOnFirstUseOfABadExpression(t *testing.T) {
	t.Parallel()
	re := New(`(`) // no panic yet
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic on first use")
		}
	}()
	re()
}
