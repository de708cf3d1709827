// Command floors draws lnbench's packages by floor from their imports:
// floor 0 imports no package of the module, and each package stands one
// floor above the highest it imports. ARCHITECTURE.md holds the drawing
// between its floors markers; `go run ./internal/cmd/floors -w` (from the
// module's root) redraws it there, and the test fails when it is stale.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	write := flag.Bool("w", false, "rewrite the drawing in ARCHITECTURE.md instead of printing it")
	flag.Parse()
	if err := run(".", *write); err != nil {
		fmt.Fprintln(os.Stderr, "floors:", err)
		os.Exit(1)
	}
}

func run(root string, write bool) error {
	imports, err := moduleImports(root)
	if err != nil {
		return err
	}
	drawing := draw(floorsOf(imports))
	if !write {
		fmt.Print(drawing)
		return nil
	}
	return rewrite(root, drawing)
}
