package cli

import (
	"context"
	"fmt"

	"github.com/lnbench/lnbench/backend"
	_ "github.com/lnbench/lnbench/backend/all" // every backend registers
	"github.com/lnbench/lnbench/backend/driver"
)

// backendNames lists the registered backends for error messages:
// "compose, local or swarm".
func backendNames() string { return driver.Either(driver.Names(nil)) }

// chooseBackend resolves a --backend value: a registered name if its probe
// passes; "auto" is the first backend by rank whose probe passes, with a
// note saying why an earlier one was passed over.
func chooseBackend(name string) (driver.Driver, string, error) {
	ctx := context.Background()
	if name == "auto" {
		return driver.Auto(ctx)
	}
	d, ok := driver.Lookup(name)
	if !ok {
		return nil, "", fmt.Errorf("--backend %q: use auto, %s", name, backendNames())
	}
	if err := d.Probe(ctx); err != nil {
		return nil, "", fmt.Errorf("--backend %s: %v; %s", name, err, d.Fix())
	}
	return d, "", nil
}

// lookupBackend finds a registered backend for tests and commands that
// name one without probing it.
func lookupBackend(name string) driver.Driver {
	d, _ := driver.Lookup(name)
	return d
}

// autoNames are the backends auto tries, in order.
func autoNames() []string {
	var names []string
	for _, d := range driver.AutoOrder() {
		names = append(names, d.Name())
	}
	return names
}

// askedOverhead is the overhead of the backend --backend names, before it
// is probed; auto's is the first backend auto tries, the slower.
func askedOverhead(name string) backend.Overhead {
	if d := lookupBackend(name); d != nil {
		return d.Caps().Overhead
	}
	if order := driver.AutoOrder(); len(order) > 0 {
		return order[0].Caps().Overhead
	}
	return backend.Overhead{}
}
