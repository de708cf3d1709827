// Package postgres is the PostgreSQL server of a network whose nodes keep
// their state in PostgreSQL (node spec db=postgres): Debian's server
// programs, a cluster made with initdb for the run, one database per node.
// Like package btcd's, the command lines are pure functions of a Config.
package postgres

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Actor is the server's name among a network's actors.
const Actor = "postgres"

// Superuser is the role initdb makes and the nodes log in as.
const Superuser = "lnbench"

// Install is how a Debian machine gets the server programs.
const Install = "apt-get install postgresql"

// Config is everything that decides the server's command lines.
type Config struct {
	// DataDir is the cluster initdb makes; SocketDir holds the Unix socket.
	DataDir, SocketDir string
	// Listen is the address the server takes TCP connections on.
	Listen string
	Port   int
	// MaxConnections bounds the server's sessions: LND opens up to 50 per
	// node (db.postgres.maxconnections), CLN one.
	MaxConnections int
}

// InitdbArgs make the cluster: Superuser with the password in pwFile,
// password logins only (scram-sha-256), UTF-8 in the C locale so the
// cluster does not depend on the machine's locales.
func (c Config) InitdbArgs(pwFile string) []string {
	return []string{"-D", c.DataDir, "-U", Superuser, "--pwfile=" + pwFile, "--auth=scram-sha-256",
		"-E", "UTF8", "--locale=C"}
}

// Args start the server on the cluster with PostgreSQL's defaults (fsync
// and synchronous commit on, as operators run it) except where it listens
// and how many sessions it takes; it logs to stderr, which the backend
// keeps with the run's logs.
func (c Config) Args() []string {
	max := c.MaxConnections
	if max <= 0 {
		max = 100
	}
	return []string{"-D", c.DataDir, "-k", c.SocketDir, "-h", c.Listen, "-p", strconv.Itoa(c.Port),
		"-c", "max_connections=" + strconv.Itoa(max), "-c", "logging_collector=off"}
}

// DSN is a node's connection string: its own database on the server. TLS
// is off: the server listens on loopback or the network's own bridge.
func DSN(pass, host string, port int, db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(Superuser, pass), Host: net.JoinHostPort(host, strconv.Itoa(port)),
		Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// BinDir is the newest server under root (Debian's /usr/lib/postgresql/N/bin
// holding postgres and initdb).
func BinDir(root string) (string, error) {
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "bin"))
	var found []string
	for _, d := range dirs {
		if isExec(filepath.Join(d, "postgres")) && isExec(filepath.Join(d, "initdb")) {
			found = append(found, d)
		}
	}
	if len(found) == 0 {
		return "", fmt.Errorf("no PostgreSQL server under %s: %s", root, Install)
	}
	sort.Slice(found, func(i, j int) bool { return major(found[i]) < major(found[j]) })
	return found[len(found)-1], nil
}

// major is the version folder's number (…/15/bin → 15; 0 if not a number).
func major(binDir string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(filepath.Base(filepath.Dir(binDir))))
	return n
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// NewPassword is a network's server password: made per run, hex (nothing
// a URL or a shell would escape).
func NewPassword() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}

// DumpDir is where a snapshot keeps the server's databases, one
// pg_dump custom-format file per node, under the server's data folder.
func DumpDir(folder string) string { return filepath.Join(folder, "dumps") }

// DumpFile is db's dump under the server's data folder.
func DumpFile(folder, db string) string { return filepath.Join(DumpDir(folder), db+".dump") }

// DumpArgs dump db whole in the custom format (what pg_restore reads,
// from a file or a pipe), without owners: the restoring cluster's
// superuser owns what it loads.
func DumpArgs(db string) []string { return []string{"-Fc", "--no-owner", "-d", db} }

// RestoreArgs load a dump into db, an empty database just created, in one
// transaction: a dump that does not load leaves no half-filled database.
func RestoreArgs(db string) []string {
	return []string{"--no-owner", "--single-transaction", "--exit-on-error", "-d", db}
}

// Dumps are the databases whose dumps a server's data folder holds.
func Dumps(folder string) []string {
	files, _ := filepath.Glob(filepath.Join(DumpDir(folder), "*.dump"))
	var dbs []string
	for _, f := range files {
		dbs = append(dbs, strings.TrimSuffix(filepath.Base(f), ".dump"))
	}
	sort.Strings(dbs)
	return dbs
}
