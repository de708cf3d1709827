// Package bitcoincli is a stand-in for Bitcoin Core's bitcoin-cli that
// answers from btcd's JSON-RPC. Core Lightning reaches its chain only by
// running bitcoin-cli (its bcli plugin), and no registry here ships
// bitcoind; btcd lacks or spells differently a few of the calls bcli
// makes, so this shim synthesises them (see calls.go). Its command line,
// stdin, output and exit codes follow bitcoin-cli's, because bcli reads
// all three.
package bitcoincli

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Invocation is one parsed bitcoin-cli command line (plus its stdin).
type Invocation struct {
	DataDir      string // -datadir: holds rpc.cert (btcd's TLS certificate)
	RPCConnect   string
	RPCPort      string
	RPCUser      string
	RPCPassword  string
	StdinRPCPass bool
	Stdin        bool // further params come from stdin, one per line
	RPCWait      bool
	WaitTimeout  time.Duration // -rpcwaittimeout; 0 waits forever (bitcoin-cli's default)
	Timeout      time.Duration // -rpcclienttimeout
	Method       string
	Params       []string
}

// Parse reads bitcoin-cli's options (everything before the method that
// starts with '-'), the method and its params. With -stdinrpcpass the
// first stdin line is the password; with -stdin every further line is a
// param after those on the command line.
func Parse(args []string, stdin io.Reader) (Invocation, error) {
	var inv Invocation
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		name, val, _ := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch name {
		case "datadir":
			inv.DataDir = val
		case "rpcconnect":
			inv.RPCConnect = val
		case "rpcport":
			inv.RPCPort = val
		case "rpcuser":
			inv.RPCUser = val
		case "rpcpassword":
			inv.RPCPassword = val
		case "stdinrpcpass":
			inv.StdinRPCPass = true
		case "stdin":
			inv.Stdin = true
		case "rpcwait":
			inv.RPCWait = true
		case "rpcwaittimeout", "rpcclienttimeout":
			secs, err := strconv.Atoi(val)
			if err != nil || secs < 0 {
				return inv, fmt.Errorf("-%s=%q: want whole seconds", name, val)
			}
			if name == "rpcwaittimeout" {
				inv.WaitTimeout = time.Duration(secs) * time.Second
			} else {
				inv.Timeout = time.Duration(secs) * time.Second
			}
		case "regtest", "testnet", "signet", "chain", "named", "conf", "rpcwallet":
			// The network is btcd's; the rest is not used by bcli.
		default:
			return inv, fmt.Errorf("unknown option -%s", name)
		}
	}
	if i == len(args) {
		return inv, fmt.Errorf("too few parameters (need at least command)")
	}
	inv.Method, inv.Params = args[i], append([]string(nil), args[i+1:]...)
	if !inv.StdinRPCPass && !inv.Stdin {
		return inv, nil
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20) // raw transactions can be long
	if inv.StdinRPCPass {
		if !sc.Scan() {
			return inv, fmt.Errorf("-stdinrpcpass specified but failed to read from standard input")
		}
		inv.RPCPassword = strings.TrimRight(sc.Text(), "\r")
	}
	if inv.Stdin {
		for sc.Scan() {
			inv.Params = append(inv.Params, strings.TrimRight(sc.Text(), "\r"))
		}
	}
	return inv, sc.Err()
}
