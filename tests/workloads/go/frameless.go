// SPDX-License-Identifier: GPL-2.0
//
// Ground truth for unwinding Go code: its linker writes .debug_frame only,
// compressed, and no .eh_frame; leaf is frameless (no frame pointer of its
// own), so only the CFI gives its caller:
//
//	runtime.goexit;runtime.main;main.main;main.middle;main.leaf
//
// Built by the tests that use it (go build).  Usage: frameless SECONDS |
// nITERATIONS; FRAMELESS_ELAPSED=1 prints the run time ("elapsed S").
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

var sink uint64

// no call and no stack use: the linker gives it no frame
//
//go:noinline
func leaf(n uint64) uint64 {
	x := n
	for i := 0; i < 2000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

//go:noinline
func middle(n uint64) uint64 {
	var a [16]uint64
	for i := range a {
		a[i] = leaf(n + uint64(i))
	}
	return a[n%16]
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: frameless SECONDS | nITERATIONS")
		os.Exit(2)
	}
	arg := os.Args[1]
	var iters int64
	secs := 0.0
	var err error
	if arg[0] == 'n' {
		iters, err = strconv.ParseInt(arg[1:], 10, 64)
	} else {
		secs, err = strconv.ParseFloat(arg, 64)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "frameless: bad argument", arg)
		os.Exit(2)
	}
	start := time.Now()
	end := start.Add(time.Duration(secs * float64(time.Second)))
	for i := int64(0); ; i++ {
		if iters > 0 && i >= iters {
			break
		}
		if iters == 0 && i%64 == 0 && !time.Now().Before(end) {
			break
		}
		sink += middle(sink)
	}
	if os.Getenv("FRAMELESS_ELAPSED") != "" {
		fmt.Printf("elapsed %.3f\n", time.Since(start).Seconds())
	}
}
