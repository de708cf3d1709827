package topology

import "testing"

func TestHops(t *testing.T) {
	line := AlicePaysBobViaCarol(19)
	if got := line.Hops("alice", "bob"); got != 20 {
		t.Errorf("a 21-node line: %d hops, want 20", got)
	}
	if got := line.Hops("carol3", "carol5"); got != 2 {
		t.Errorf("carol3 to carol5: %d hops, want 2", got)
	}
	ring := Topology{Channels: []Channel{{From: "a", To: "b"}, {From: "b", To: "c"}, {From: "c", To: "d"}, {From: "a", To: "d"}}}
	if got := ring.Hops("a", "c"); got != 2 {
		t.Errorf("a ring of four: %d hops, want the shorter way's 2", got)
	}
	if got := ring.Hops("a", "z"); got != 0 {
		t.Errorf("a node off the graph: %d hops, want 0", got)
	}
}
