package postgres

import (
	"embed"
	"fmt"
	"path"
)

// image holds the container recipe of the compose backend's server.
//
//go:embed image
var image embed.FS

// ImageFiles are the image's build context: the Dockerfile and the
// entrypoint, by file name.
func ImageFiles() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, name := range []string{"Dockerfile", "lnbench-postgres.sh"} {
		data, err := image.ReadFile(path.Join("image", name))
		if err != nil {
			return nil, err
		}
		out[name] = data
	}
	return out, nil
}

// ContainerData is the cluster inside the container (the entrypoint's).
const ContainerData = "/var/lib/postgresql/lnbench"

// Port is the server's port inside a compose network.
const Port = 5432

// PassVar keeps the password out of the compose file, which lands in the
// artifacts: compose substitutes it from the environment the backend sets.
const PassVar = "${LNBENCH_PGPASS:-lnbench}"

// ContainerConfig is the server as the compose file runs it: every
// interface of its container, the socket in /tmp.
func ContainerConfig() Config {
	return Config{DataDir: ContainerData, SocketDir: "/tmp", Listen: "*", Port: Port, MaxConnections: 1000}
}

// ComposeDSN is a node's connection string inside a compose network, the
// password left for compose to substitute (DSN would escape it).
func ComposeDSN(db string) string {
	return fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", Superuser, PassVar, Actor, Port, db)
}
