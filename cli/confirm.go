package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// LongRun is the estimated wall time above which a run needs --yes (or a
// "y" at the prompt on a terminal): hours of a shared machine should not
// start by a typo in a param list.
const LongRun = time.Hour

func addYesFlag(fl *pflag.FlagSet, f *runFlags) {
	fl.BoolVar(&f.yes, "yes", false, fmt.Sprintf("start a run estimated above %v without asking", LongRun))
}

// confirmLong lets a run estimated above LongRun start only with --yes, or
// when the user answers "y" on a terminal; elsewhere it refuses in one line.
func confirmLong(est time.Duration, yes bool, stdin io.Reader, stderr io.Writer) error {
	if est <= LongRun || yes {
		return nil
	}
	f, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return fmt.Errorf("estimated ~%v, above %v: pass --yes to start it, or shorten it (fewer param values, --quick, a smaller IterationCount)", est.Round(time.Minute), LongRun)
	}
	fmt.Fprintf(stderr, "estimated ~%v, above %v. Start it? [y/N] ", est.Round(time.Minute), LongRun)
	answer, _ := bufio.NewReader(stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a == "y" || a == "yes" {
		return nil
	}
	return fmt.Errorf("not started (estimated ~%v); --yes skips the question", est.Round(time.Minute))
}
