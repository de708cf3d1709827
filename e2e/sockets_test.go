//go:build e2e

package e2e

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tcpPeersOf lists the remote ip:port of pid's established IPv4 TCP
// connections, from the kernel's socket table (/proc/net/tcp) matched to
// the process's open socket inodes.
func tcpPeersOf(t *testing.T, pid int) []string {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if ino, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	table, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", pid))
	if err != nil {
		t.Fatal(err)
	}
	var peers []string
	for _, line := range strings.Split(string(table), "\n")[1:] {
		f := strings.Fields(line)
		// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
		if len(f) < 10 || f[3] != "01" || !inodes[f[9]] { // 01: ESTABLISHED
			continue
		}
		if peer, ok := hexAddr(f[2]); ok {
			peers = append(peers, peer)
		}
	}
	return peers
}

// hexAddr reads /proc/net/tcp's "0100007F:1F90" (little-endian IPv4).
func hexAddr(s string) (string, bool) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	b, err := hex.DecodeString(ipHex)
	port, perr := strconv.ParseUint(portHex, 16, 16)
	if !ok || err != nil || perr != nil || len(b) != 4 {
		return "", false
	}
	return net.JoinHostPort(net.IPv4(b[3], b[2], b[1], b[0]).String(), strconv.Itoa(int(port))), true
}
