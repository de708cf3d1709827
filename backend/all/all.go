// Package all registers every backend lnbench runs on: import it for its
// side effect, and find the backends with backend/driver.
package all

import (
	_ "github.com/lnbench/lnbench/backend/compose"
	_ "github.com/lnbench/lnbench/backend/local"
	_ "github.com/lnbench/lnbench/backend/swarm"
)
