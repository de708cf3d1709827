package backend

import (
	"maps"
	"testing"
)

func TestParseProcCgroups(t *testing.T) {
	const id = "0123abcd"
	for _, c := range []struct {
		name, data string
		want       ProcCgroups
		accounting string // ProcCgroups.Accounting
		container  string // containerCgroup(…, id)
	}{
		{name: "v2", data: "0::/system.slice/docker-" + id + ".scope\n",
			want:       ProcCgroups{"": "/system.slice/docker-" + id + ".scope"},
			accounting: "/system.slice/docker-" + id + ".scope", container: "/system.slice/docker-" + id + ".scope"},
		{name: "v1 with the unified entry of a hybrid host",
			data: "12:name=systemd:/docker/" + id + "\n4:memory:/docker/" + id + "\n3:cpu,cpuacct:/docker/" + id + "\n2:blkio:/docker/" + id + "\n0::/\n",
			want: ProcCgroups{"name=systemd": "/docker/" + id, "memory": "/docker/" + id, "cpu": "/docker/" + id,
				"cpuacct": "/docker/" + id, "blkio": "/docker/" + id, "": "/"},
			accounting: "/docker/" + id, container: "/docker/" + id},
		{name: "v1 placing the container differently per controller",
			data:       "3:cpuacct:/kubepods/" + id + "\n4:memory:/docker/" + id + "\n",
			want:       ProcCgroups{"cpuacct": "/kubepods/" + id, "memory": "/docker/" + id},
			accounting: "/kubepods/" + id, container: "/kubepods/" + id},
		{name: "a path holding colons", data: "0::/a:b:c\n",
			want: ProcCgroups{"": "/a:b:c"}, accounting: "/a:b:c"},
		{name: "another process (not the container)", data: "0::/user.slice/session-2.scope\n",
			want: ProcCgroups{"": "/user.slice/session-2.scope"}, accounting: "/user.slice/session-2.scope"},
		{name: "malformed lines skipped", data: "garbage\n1:cpu\n\n0::/x\n",
			want: ProcCgroups{"": "/x"}, accounting: "/x"},
		{name: "empty", data: "", want: ProcCgroups{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ParseProcCgroups([]byte(c.data))
			if !maps.Equal(got, c.want) {
				t.Errorf("parsed %v, want %v", got, c.want)
			}
			if a := got.Accounting(); a != c.accounting {
				t.Errorf("accounting %q, want %q", a, c.accounting)
			}
			if p := containerCgroup(got, id); p != c.container {
				t.Errorf("container's %q, want %q", p, c.container)
			}
			if p := containerCgroup(got, ""); p != "" {
				t.Errorf("no container id: %q, want \"\"", p)
			}
		})
	}
}
