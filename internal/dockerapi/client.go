// Package dockerapi reaches a Docker engine's HTTP API in-process (the
// harness's samplers and watchdogs ask it every second; a CLI process per
// question would cost more than what it measures). Requests and answers
// use the engine's own types (github.com/docker/docker/api/types); the
// Docker Go client is not used: it brings OpenTelemetry and a newer gRPC
// into the harness whose gRPC calls are measured.
package dockerapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// CLIHost is the engine the docker CLI is set to reach, whatever it is.
const CLIHost = "cli:"

var (
	clientsMu sync.Mutex
	clients   = map[string]*http.Client{}
)

// Client is the HTTP client of the engine at host (a DOCKER_HOST; "" is
// $DOCKER_HOST when it is a unix socket, else /var/run/docker.sock), made
// once: its idle connections serve the next requests. A unix socket is
// dialed directly; any other host (ssh://, tcp:// with the CLI's TLS
// settings) through `docker -H host system dial-stdio`, and CLIHost
// through `docker system dial-stdio`: the engine the CLI's own settings
// name ($DOCKER_HOST with its TLS variables, else the current context).
// Requests go to http://engine/<API path>.
func Client(host string) *http.Client {
	if host == "" {
		host = "unix:///var/run/docker.sock"
		if h := os.Getenv("DOCKER_HOST"); strings.HasPrefix(h, "unix://") {
			host = h
		}
	}
	clientsMu.Lock()
	defer clientsMu.Unlock()
	if c := clients[host]; c != nil {
		return c
	}
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", strings.TrimPrefix(host, "unix://"))
	}
	if !strings.HasPrefix(host, "unix://") {
		dial = func(context.Context, string, string) (net.Conn, error) { return dialStdio(host) }
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dial, MaxIdleConnsPerHost: 32, IdleConnTimeout: 30 * time.Second}}
	clients[host] = c
	return c
}

// dialStdio is a connection to the engine at host through the docker CLI
// (`docker -H host system dial-stdio`): what it reads and writes is the
// engine's API, over whatever the CLI reaches it by (ssh, TLS).
func dialStdio(host string) (net.Conn, error) {
	args := []string{"-H", host, "system", "dial-stdio"}
	if host == CLIHost {
		args = args[2:]
	}
	cmd := exec.Command("docker", args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("docker %s: %v", strings.Join(args, " "), err)
	}
	return &stdioConn{cmd: cmd, in: in, out: out, stderr: stderr}, nil
}

// stdioConn is a net.Conn over a dial-stdio process's stdin and stdout.
type stdioConn struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    io.ReadCloser
	stderr *lockedBuffer
	once   sync.Once
}

// lockedBuffer is a process's stderr, read while the process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (c *stdioConn) Read(p []byte) (int, error) {
	n, err := c.out.Read(p)
	if err == io.EOF && n == 0 {
		if msg := strings.TrimSpace(c.stderr.String()); msg != "" {
			return 0, fmt.Errorf("docker system dial-stdio: %s", msg)
		}
	}
	return n, err
}
func (c *stdioConn) Write(p []byte) (int, error) { return c.in.Write(p) }
func (c *stdioConn) Close() error {
	c.once.Do(func() {
		c.in.Close()
		c.out.Close()
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
	return nil
}
func (c *stdioConn) LocalAddr() net.Addr              { return stdioAddr{} }
func (c *stdioConn) RemoteAddr() net.Addr             { return stdioAddr{} }
func (c *stdioConn) SetDeadline(time.Time) error      { return nil }
func (c *stdioConn) SetReadDeadline(time.Time) error  { return nil }
func (c *stdioConn) SetWriteDeadline(time.Time) error { return nil }

type stdioAddr struct{}

func (stdioAddr) Network() string { return "dial-stdio" }
func (stdioAddr) String() string  { return "dial-stdio" }
