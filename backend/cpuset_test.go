package backend

import "testing"

func TestCPUList(t *testing.T) {
	for _, tt := range []struct {
		cpus []int
		want string
	}{
		{[]int{0, 1, 2, 5, 7, 8}, "0-2,5,7-8"},
		{[]int{3}, "3"},
		{nil, ""},
	} {
		if got := CPUList(tt.cpus); got != tt.want {
			t.Errorf("CPUList(%v) = %q, want %q", tt.cpus, got, tt.want)
		}
	}
}
