package compose

import (
	"context"
	"fmt"

	"github.com/lnbench/lnbench/backend/orchestrator"
	"github.com/lnbench/lnbench/dbserver/postgres"
)

// containerBin is, in a shell of the server's container, the newest
// server's programs (as its entrypoint picks them).
const containerBin = "$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"

// startPostgres starts the network's PostgreSQL service once, at the first
// db=postgres node, and waits until it takes TCP connections: its
// entrypoint has made the cluster and every node's database by then (it
// listens only on its socket meanwhile).
func (b *Backend) startPostgres(ctx context.Context) error {
	b.pgMu.Lock()
	defer b.pgMu.Unlock()
	b.mu.Lock()
	started := b.started[postgres.Actor]
	b.mu.Unlock()
	if started {
		return nil
	}
	ready := fmt.Sprintf("exec %s/pg_isready -q -h 127.0.0.1 -p %d", containerBin, postgres.Port)
	_, err := b.waiting().Start(ctx, b, "database", postgres.Actor, func(t orchestrator.Task) bool {
		_, err := runEnv(ctx, nil, "docker", "exec", t.Container, "sh", "-c", ready)
		return err == nil
	})
	if err == nil {
		err = b.restoreDatabases(ctx)
	}
	return err
}
