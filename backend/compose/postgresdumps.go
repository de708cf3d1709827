package compose

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/internal/dockercli"
)

// KeepDatabases has Teardown dump every node's database into the
// server's data folder on this host (backend.DatabaseKeeper), for a
// snapshot.
func (b *Backend) KeepDatabases() {
	b.mu.Lock()
	b.keepDBs = true
	b.mu.Unlock()
}

var _ backend.DatabaseKeeper = (*Backend)(nil)

// pgClient is a client program of the container's newest server, as the
// superuser over its socket, with the run's password from the
// container's environment (never on a command line the host sees).
func pgClient(program string, args ...string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return fmt.Sprintf(`PGPASSWORD=$LNBENCH_PGPASS exec %s/%s -h /tmp -U %s %s`,
		containerBin, program, postgres.Superuser, strings.Join(quoted, " "))
}

// dumpDatabases stops the nodes and dumps their databases out of the
// server's container, before `down` stops it, when KeepDatabases asked.
func (b *Backend) dumpDatabases(ctx context.Context) error {
	b.mu.Lock()
	keep, dbs := b.keepDBs, b.spec.PostgresDatabases()
	var nodes []string
	for name, up := range b.started {
		if up && name != postgres.Actor && name != backend.ChainActor {
			nodes = append(nodes, name)
		}
	}
	b.mu.Unlock()
	if !keep || len(dbs) == 0 {
		return nil
	}
	if _, err := b.compose(ctx, append([]string{"stop", "-t", "10"}, nodes...)...); err != nil {
		return fmt.Errorf("stopping the nodes before dumping their databases: %w", err)
	}
	c, err := b.ContainerName(ctx, postgres.Actor)
	if err != nil {
		return err
	}
	folder := b.DataFolder(postgres.Actor)
	if err := os.MkdirAll(postgres.DumpDir(folder), 0o700); err != nil {
		return err
	}
	for _, db := range dbs {
		f, err := os.Create(postgres.DumpFile(folder, db))
		if err != nil {
			return err
		}
		err = dockercli.Pipe(ctx, nil, f, "exec", c, "sh", "-c", pgClient("pg_dump", postgres.DumpArgs(db)...))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(f.Name())
			return fmt.Errorf("dumping %s's PostgreSQL database: %w", db, err)
		}
	}
	return nil
}

// restoreDatabases loads the dumps a restored snapshot left in the
// server's data folder into the databases the container's entrypoint
// made, before any node starts.
func (b *Backend) restoreDatabases(ctx context.Context) error {
	folder := b.DataFolder(postgres.Actor)
	dbs := postgres.Dumps(folder)
	if len(dbs) == 0 {
		return nil
	}
	c, err := b.ContainerName(ctx, postgres.Actor)
	if err != nil {
		return err
	}
	for _, db := range dbs {
		f, err := os.Open(postgres.DumpFile(folder, db))
		if err != nil {
			return err
		}
		err = dockercli.Pipe(ctx, f, io.Discard, "exec", "-i", c, "sh", "-c", pgClient("pg_restore", postgres.RestoreArgs(db)...))
		f.Close()
		if err != nil {
			return fmt.Errorf("loading %s's database from its dump: %w", db, err)
		}
	}
	return nil
}
