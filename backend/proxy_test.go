package backend

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProxyPIDs(t *testing.T) {
	proc := t.TempDir()
	cmdline := func(pid int, args ...string) {
		dir := filepath.Join(proc, fmt.Sprint(pid))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "cmdline"), []byte(strings.Join(args, "\x00")+"\x00"), 0o644)
	}
	proxy := func(pid, port int) {
		cmdline(pid, "/usr/bin/docker-proxy", "-proto", "tcp", "-host-ip", "127.0.0.1", "-host-port", fmt.Sprint(port), "-container-ip", "172.18.0.3", "-container-port", "10009")
	}
	proxy(10, 49153)
	proxy(11, 49154)
	proxy(12, 50000) // another run's port
	cmdline(13, "lnd", "-host-port", "49153")
	cmdline(14, "/usr/bin/docker-proxy") // no port
	os.MkdirAll(filepath.Join(proc, "self"), 0o755)
	got := ProxyPIDs(proc, map[int]bool{49153: true, 49154: true})
	if fmt.Sprint(got) != "[10 11]" {
		t.Fatalf("got %v", got)
	}
	if ProxyPIDs(proc, nil) != nil {
		t.Fatal("no ports, no proxies")
	}
}
