package calc

import "testing"

func TestAddPasses(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Fatalf("Add(1, 2) = %d, want 3", got)
	}
}

func TestAddFails(t *testing.T) {
	if got := Add(2, 2); got != 5 {
		t.Errorf("Add(2, 2) = %d, want 5", got)
	}
}

func TestSkipped(t *testing.T) {
	t.Skip("not ready yet")
}

func TestTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b int
		want int
	}{
		{"small", 1, 1, 2},
		{"negative", -1, -1, -3},
		{"zero", 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Add(tc.a, tc.b); got != tc.want {
				t.Errorf("Add(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestParallelGroup(t *testing.T) {
	t.Run("one", func(t *testing.T) { t.Parallel() })
	t.Run("two", func(t *testing.T) { t.Parallel() })
}

func TestParentFailsItself(t *testing.T) {
	t.Run("inner", func(t *testing.T) {})
	t.Error("the parent's own check failed")
}

func TestPanics(t *testing.T) {
	var m map[string]int
	m["x"] = 1
}
