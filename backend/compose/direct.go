package compose

import (
	"context"
	"maps"
	"net"
	"slices"
	"strconv"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/lnbench/lnbench/backend/orchestrator"
)

// The harness's own calls (a payment's RPCs) go to a container's address
// on the compose network when this host routes to it, not through the
// published loopback port: the userland proxy behind published ports
// (docker-proxy) spent 0.37 ms of CPU per payment relaying them, 3.7% of
// the nodes' CPU at c=60. Ports stay published (on 127.0.0.1) for users.

// containerAddrs are a container's IPv4 addresses on its networks.
func (b *Backend) containerAddrs(ctx context.Context, id string) []string {
	c, err := b.inspect1(ctx, id)
	if err != nil {
		return nil
	}
	return addrsOf(c)
}

// addrsOf are a container document's IPv4 addresses, in network order.
func addrsOf(c container.InspectResponse) []string {
	var ips []string
	for _, n := range networksOf(c) {
		if ip := net.ParseIP(n.IPAddress); ip != nil && ip.To4() != nil {
			ips = append(ips, n.IPAddress)
		}
	}
	return ips
}

// networksOf is a container's networks in name order.
func networksOf(c container.InspectResponse) []*network.EndpointSettings {
	if c.NetworkSettings == nil {
		return nil
	}
	var out []*network.EndpointSettings
	for _, name := range slices.Sorted(maps.Keys(c.NetworkSettings.Networks)) {
		if n := c.NetworkSettings.Networks[name]; n != nil {
			out = append(out, n)
		}
	}
	return out
}

// harnessHost is where the harness reaches a container port of task t:
// once the service answers on the published port (answers says so), its
// first address that answers too, else the published port (no route from
// this host, e.g. a remote or rootless engine). "" while it does not
// answer.
func (b *Backend) harnessHost(ctx context.Context, t orchestrator.Task, port int, answers func(hostPort string) bool) string {
	hostPort := published(t, port)
	if hostPort == "" || !answers(hostPort) {
		return ""
	}
	for _, ip := range b.containerAddrs(ctx, t.Container) {
		if hp := net.JoinHostPort(ip, strconv.Itoa(port)); answers(hp) {
			return hp
		}
	}
	return hostPort
}
