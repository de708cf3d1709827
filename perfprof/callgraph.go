package perfprof

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"strings"
)

// CallGraphFor resolves the unwinding mode for perf record --call-graph.
// "fp" walks frame pointers: cheap, but stacks of code built without them
// (gcc -O1 and up, -Og included, omit them) come out cut short. "dwarf"
// copies each sample's stack and unwinds it afterwards from the binaries'
// unwind tables: whole stacks at a higher cost. "auto" (or "") reads how
// exe was compiled (the DW_AT_producer gcc records in its debug info) and
// takes fp only when its code keeps frame pointers; why says which.
func CallGraphFor(mode, exe string) (resolved, why string, err error) {
	if err := CheckCallGraph(mode); err != nil {
		return "", "", err
	}
	if mode == "fp" || mode == "dwarf" {
		return mode, "asked for", nil
	}
	if isGo(exe) {
		return "fp", "a Go binary (Go keeps frame pointers)", nil
	}
	keeps, total := framePointerUnits(exe)
	switch {
	case total == 0:
		return "dwarf", "no compiler flags recorded in the binary's debug info", nil
	case keeps*2 >= total:
		return "fp", fmt.Sprintf("%d of %d compile units keep frame pointers", keeps, total), nil
	}
	return "dwarf", fmt.Sprintf("%d of %d compile units keep frame pointers", keeps, total), nil
}

// CheckCallGraph refuses a mode CallGraphFor does not know.
func CheckCallGraph(mode string) error {
	switch mode {
	case "", "auto", "fp", "dwarf":
		return nil
	}
	return fmt.Errorf("call graph %q: use fp, dwarf or auto", mode)
}

// framePointerUnits counts, among the first compile units of exe that
// record their flags, those compiled keeping frame pointers.
func framePointerUnits(exe string) (keeps, total int) {
	f, err := elf.Open(exe)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return 0, 0
	}
	r := d.Reader()
	for total < 200 {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit && e.Tag != dwarf.TagPartialUnit {
			r.SkipChildren()
			continue
		}
		r.SkipChildren()
		prod, _ := e.Val(dwarf.AttrProducer).(string)
		if !strings.Contains(prod, " -") {
			continue // assembler units, or flags not recorded
		}
		total++
		if KeepsFramePointers(prod) {
			keeps++
		}
	}
	return keeps, total
}

// KeepsFramePointers reads a gcc/clang producer string ("GNU C11 12.2.0
// -mtune=generic -O2 -g …"): the last -f[no-]omit-frame-pointer wins,
// else frame pointers are kept only without optimisation (-O0 or no -O).
func KeepsFramePointers(producer string) bool {
	keep, opt := -1, false
	for _, f := range strings.Fields(producer) {
		switch {
		case f == "-fno-omit-frame-pointer":
			keep = 1
		case f == "-fomit-frame-pointer":
			keep = 0
		case strings.HasPrefix(f, "-O"):
			opt = f != "-O0"
		}
	}
	if keep >= 0 {
		return keep == 1
	}
	return !opt
}

// isGo tells a Go binary by its build info section, there even when
// stripped (the bitcoin-cli shim lightningd runs is one).
func isGo(exe string) bool {
	f, err := elf.Open(exe)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Section(".go.buildinfo") != nil
}
