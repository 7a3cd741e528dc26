package lazyre

import "testing"

func TestCompiledOnce(t *testing.T) {
	re := New(`^a+$`)
	if first, again := re(), re(); first != again {
		t.Fatal("the expression compiles again on each call")
	}
	if !re().MatchString("aaa") || re().MatchString("ab") {
		t.Fatalf("^a+$ matches wrongly")
	}
}

func TestBadExpressionPanicsOnUse(t *testing.T) {
	re := New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("a bad expression did not panic on first use")
		}
	}()
	re()
}
