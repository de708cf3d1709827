package compose

import (
	"context"
	"net"
	"strconv"
	"strings"
)

// The harness's own calls (a payment's RPCs) go to a container's address
// on the compose network when this host routes to it, not through the
// published loopback port: the userland proxy behind published ports
// (docker-proxy) spent 0.37 ms of CPU per payment relaying them, 3.7% of
// the nodes' CPU at c=60. Ports stay published (on 127.0.0.1) for users.

// containerAddrs are a container's IPv4 addresses on its networks.
func containerAddrs(ctx context.Context, id string) []string {
	out, err := docker(ctx, "inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", id)
	if err != nil {
		return nil
	}
	return parseAddrs(out)
}

func parseAddrs(out string) []string {
	var ips []string
	for _, f := range strings.Fields(out) {
		if ip := net.ParseIP(f); ip != nil && ip.To4() != nil {
			ips = append(ips, f)
		}
	}
	return ips
}

// harnessHost is where the harness reaches port of container id: once the
// service answers on the published port (answers says so; *published
// keeps the port between polls), its first address that answers too, else
// the published port (no route from this host, e.g. a remote or rootless
// engine). "" while it does not answer.
func harnessHost(ctx context.Context, id string, port int, published *string, answers func(hostPort string) bool) string {
	if *published == "" {
		*published, _ = PublishedPort(ctx, id, port)
	}
	if *published == "" || !answers(*published) {
		return ""
	}
	for _, ip := range containerAddrs(ctx, id) {
		if hp := net.JoinHostPort(ip, strconv.Itoa(port)); answers(hp) {
			return hp
		}
	}
	return *published
}
