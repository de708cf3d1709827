package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/internal/fileutil"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/internal/runs"
)

// postgresRoot is where Debian installs PostgreSQL's server programs.
var postgresRoot = "/usr/lib/postgresql"

// pgServer is the network's PostgreSQL server, started by the first node
// whose database it is.
type pgServer struct {
	cfg  postgres.Config
	bin  string
	pass string
	// tmp holds the cluster, its socket and the password file: outside the
	// run's folder, which the server's user (not root) may not reach.
	tmp string
	// dbs are the databases made for nodes, in creation order.
	dbs []string
}

// postgresDSN creates the node's database on the network's PostgreSQL
// server, starting the server first if no node has, and returns the
// node's connection string.
func (b *Backend) postgresDSN(ctx context.Context, node string) (string, error) {
	b.pgMu.Lock()
	defer b.pgMu.Unlock()
	if b.pg == nil {
		pg, err := b.startPostgres(ctx)
		if err != nil {
			return "", fmt.Errorf("node %s: db=postgres: %w", node, err)
		}
		b.pg = pg
	}
	out, err := b.pg.client(ctx, "createdb", node).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("node %s: creating its PostgreSQL database: %v: %s", node, err, out)
	}
	b.pg.dbs = append(b.pg.dbs, node)
	if dump := postgres.DumpFile(b.DataFolder(postgres.Actor), node); fileutil.NonEmpty(dump) {
		args := append(postgres.RestoreArgs(node), dump)
		if out, err := b.pg.client(ctx, "pg_restore", args...).CombinedOutput(); err != nil {
			return "", fmt.Errorf("node %s: loading its database from %s: %v: %s", node, dump, err, lines.First(string(out)))
		}
	}
	return postgres.DSN(b.pg.pass, "127.0.0.1", b.pg.cfg.Port, node), nil
}

// KeepDatabases has Teardown dump every node's database into the
// server's data folder (backend.DatabaseKeeper), for a snapshot.
func (b *Backend) KeepDatabases() { b.keepDBs = true }

var _ backend.DatabaseKeeper = (*Backend)(nil)

// dumpDatabases dumps the nodes' databases (the nodes have stopped) when
// KeepDatabases asked for it.
func (b *Backend) dumpDatabases(ctx context.Context) error {
	b.pgMu.Lock()
	defer b.pgMu.Unlock()
	if !b.keepDBs || b.pg == nil {
		return nil
	}
	folder := b.DataFolder(postgres.Actor)
	if err := os.MkdirAll(postgres.DumpDir(folder), 0o700); err != nil {
		return err
	}
	for _, db := range b.pg.dbs {
		args := append(postgres.DumpArgs(db), "-f", postgres.DumpFile(folder, db))
		if out, err := b.pg.client(ctx, "pg_dump", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("dumping %s's PostgreSQL database: %v: %s", db, err, lines.First(string(out)))
		}
	}
	return nil
}

// client runs one of the server's client programs (createdb, psql) as the
// superuser over TCP.
func (pg *pgServer) client(ctx context.Context, program string, args ...string) *exec.Cmd {
	base := []string{"-h", pg.cfg.Listen, "-p", strconv.Itoa(pg.cfg.Port), "-U", postgres.Superuser}
	c := exec.CommandContext(ctx, filepath.Join(pg.bin, program), append(base, args...)...)
	c.Env = append(os.Environ(), "PGPASSWORD="+pg.pass, "PGCONNECT_TIMEOUT=5")
	return c
}

// startPostgres makes a cluster with initdb and starts the server on a
// loopback port, as an unprivileged user when the harness is root.
func (b *Backend) startPostgres(ctx context.Context) (*pgServer, error) {
	bin, err := postgres.BinDir(postgresRoot)
	if err != nil {
		return nil, err
	}
	logDir := b.DataFolder(postgres.Actor)
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return nil, err
	}
	tmp, err := clusterDir(b.opts.RunID)
	if err != nil {
		return nil, err
	}
	pg := &pgServer{bin: bin, tmp: tmp, pass: postgres.NewPassword()}
	cred, err := serverUser(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	pwFile := filepath.Join(tmp, "pw")
	if err := writeOwned(pwFile, pg.pass, cred); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	port, err := allocated.next()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	pg.cfg = postgres.Config{DataDir: filepath.Join(tmp, "data"), SocketDir: tmp, Listen: "127.0.0.1", Port: port, MaxConnections: 1000}
	initLog := filepath.Join(logDir, "initdb.log")
	if err := runAs(ctx, cred, initLog, filepath.Join(bin, "initdb"), pg.cfg.InitdbArgs(pwFile)...); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("initdb: %v; see %s:\n%s", err, initLog, lines.LogTail(initLog, 8))
	}
	os.Remove(pwFile)
	p, err := launch(&proc{name: postgres.Actor, logPath: filepath.Join(logDir, "stdout.log"), bin: filepath.Join(bin, "postgres"),
		args: pg.cfg.Args(), cpus: b.opts.CPUs, cred: cred})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	p.dataDir = pg.cfg.DataDir
	p.ready = func() bool {
		c := exec.Command(filepath.Join(bin, "pg_isready"), "-q", "-h", pg.cfg.Listen, "-p", strconv.Itoa(port))
		return c.Run() == nil
	}
	b.track(p)
	wctx, cancel := context.WithTimeoutCause(ctx, b.opts.StartTimeout, fmt.Errorf("start timeout %v", b.opts.StartTimeout))
	defer cancel()
	if err := p.waitReady(wctx, "database", p.ready); err != nil {
		p.stop(10 * time.Second)
		os.RemoveAll(tmp)
		return nil, err
	}
	return pg, nil
}

// serverUser is who the server runs as: the harness's own user, or when
// that is root (which PostgreSQL refuses) Debian's postgres user, else
// nobody; dir is made theirs.
func serverUser(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL does not run as root and this machine has no postgres or nobody user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return cred, os.Chown(dir, uid, gid)
}

func writeOwned(path, content string, cred *syscall.Credential) error {
	if err := os.WriteFile(path, []byte(content+"\n"), 0o600); err != nil {
		return err
	}
	if cred != nil {
		return os.Chown(path, int(cred.Uid), int(cred.Gid))
	}
	return nil
}

// runAs runs a program to its end as cred's user, its output in logPath.
func runAs(ctx context.Context, cred *syscall.Credential, logPath, bin string, args ...string) error {
	out, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer out.Close()
	c := exec.CommandContext(ctx, bin, args...)
	c.Stdout, c.Stderr = out, out
	c.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	c.WaitDelay = 5 * time.Second
	return c.Run()
}

// stopPostgres stops the server after the nodes (a fast shutdown: the
// nodes' sessions are gone) and removes its cluster.
func (b *Backend) stopPostgres() {
	b.pgMu.Lock()
	pg := b.pg
	b.pgMu.Unlock()
	b.mu.Lock()
	p := b.procs[postgres.Actor]
	b.mu.Unlock()
	if p != nil && !p.exited() {
		_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGINT)
		p.stop(10 * time.Second)
	}
	if pg != nil {
		os.RemoveAll(pg.tmp)
		os.Remove(filepath.Dir(pg.tmp)) // the run's folder, once its last cluster is gone
	}
}

// clusterDir makes a folder for one cluster under the run's folder in
// runs.PostgresRoot, where ps and down find what a harness killed outright
// left (the cluster and its password file). The folders above it are
// open to traversal: the server runs as another user.
func clusterDir(runID string) (string, error) {
	if runID == "" {
		return os.MkdirTemp("", "lnbench-postgres-")
	}
	parent := filepath.Join(runs.PostgresRoot(), runID)
	if err := os.MkdirAll(parent, 0o711); err != nil {
		return "", err
	}
	for _, d := range []string{runs.PostgresRoot(), parent} {
		if err := os.Chmod(d, 0o711); err != nil {
			return "", err
		}
	}
	return os.MkdirTemp(parent, "cluster-")
}
