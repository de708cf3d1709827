// Package fragments holds the per-role Docker Compose fragments (chain.yml,
// actor-lnd.yml, actor-cln.yml, sampler.yml) and the scripts copied into the node image
// (scripts/ → /usr/local/bin). They are embedded so that the lnbench binary
// is self-contained; the compose generator can also read them from a folder
// (compose.Options.FragmentsDir) while you edit them.
//
// A fragment is a partial compose file with exactly one service: the role's
// fixed settings (entrypoint, ports to publish, environment, stop grace).
// The generator (package composefile) adds what depends on the run: image,
// command line, user, bind mounts, labels, network and limits.
package fragments

import "embed"

// FS holds *.yml and scripts/.
//
//go:embed *.yml scripts
var FS embed.FS
