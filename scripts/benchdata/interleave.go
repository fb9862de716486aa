//go:build ignore

// Command interleave times two or more commands against each other,
// interleaved: after -warmup unmeasured rounds, each of -rounds rounds runs
// every command once, the order rotating from round to round (A B, B A,
// A B, ...), so that drift in the machine's load and any advantage of going
// first or second fall on every command alike. The first command is the
// baseline; for each other one it prints the per-round ratio (command ÷
// baseline, wall and CPU time and peak resident memory), its minimum and
// median, beside each command's own median and minimum.
//
//	go run scripts/benchdata/interleave.go -rounds 7 -name check \
//	    -- ./old check --repo R --base B -- ./new check --repo R --base B
//
// With -tsv it prints the same as tab-separated lines for scripts to read:
//
//	cmd    NAME LABEL wall-median wall-min cpu-median cpu-min rss-median-KiB rss-max-KiB
//	ratio  NAME LABEL BASELINE wall-min wall-median cpu-min cpu-median rss-min rss-median rounds
//
// (times in seconds). Commands run without a shell, their output
// discarded; an exit code not in -ok stops the run with the command's
// error output. Peak memory is the process's maximum resident set size as
// the kernel reports it on exit (Linux and macOS).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() { os.Exit(interleave()) }

// interleave runs the measurement and returns the exit code: 2 for bad
// flags, 1 for a command that failed.
func interleave() int {
	rounds := flag.Int("rounds", 7, "measured rounds (at least 1)")
	warmup := flag.Int("warmup", 1, "unmeasured rounds before them")
	name := flag.String("name", "", "a label for the result lines")
	okCodes := flag.String("ok", "0,1", "exit codes that count as success, comma-separated")
	labels := flag.String("labels", "", "names of the commands, comma-separated (default: A, B, C, ...)")
	raw := flag.String("raw", "", "also append each measured run to FILE: name, round, command, wall and CPU seconds, peak RSS KiB (tab-separated)")
	tsv := flag.Bool("tsv", false, "print the results as tab-separated lines (see the command's doc)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: interleave [flags] -- BASELINE [ARGS...] -- OTHER [ARGS...] [-- ...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	cmds := split(flag.Args())
	if len(cmds) < 2 || *rounds < 1 || *warmup < 0 {
		flag.Usage()
		return 2
	}
	ok, err := parseCodes(*okCodes)
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: -ok: %v\n", err)
		return 2
	}
	names, err := commandNames(*labels, len(cmds))
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: -labels: %v\n", err)
		return 2
	}
	var rawOut *os.File
	if *raw != "" {
		if rawOut, err = os.OpenFile(*raw, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "interleave: -raw: %v\n", err)
			return 2
		}
		defer rawOut.Close()
	}
	wall := make([][]float64, len(cmds)) // seconds, by command, by round
	cpu := make([][]float64, len(cmds))
	rss := make([][]float64, len(cmds)) // KiB
	for r := -*warmup; r < *rounds; r++ {
		for k := range cmds {
			i := (k + max(r, 0)) % len(cmds)
			w, c, m, err := run(cmds[i], ok)
			if err != nil {
				fmt.Fprintf(os.Stderr, "interleave: %s: %v\n", strings.Join(cmds[i], " "), err)
				return 1
			}
			if r < 0 {
				continue
			}
			wall[i] = append(wall[i], w)
			cpu[i] = append(cpu[i], c)
			rss[i] = append(rss[i], m)
			if rawOut != nil {
				fmt.Fprintf(rawOut, "%s\t%d\t%s\t%.6f\t%.6f\t%.0f\n", *name, r+1, names[i], w, c, m)
			}
		}
	}
	if *tsv {
		for i := range cmds {
			fmt.Printf("cmd\t%s\t%s\t%.6f\t%.6f\t%.6f\t%.6f\t%.0f\t%.0f\n", *name, names[i],
				median(wall[i]), slices.Min(wall[i]), median(cpu[i]), slices.Min(cpu[i]), median(rss[i]), slices.Max(rss[i]))
		}
		for i := 1; i < len(cmds); i++ {
			rw, rc, rm := ratios(wall[i], wall[0]), ratios(cpu[i], cpu[0]), ratios(rss[i], rss[0])
			fmt.Printf("ratio\t%s\t%s\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%d\n", *name, names[i], names[0],
				slices.Min(rw), median(rw), slices.Min(rc), median(rc), slices.Min(rm), median(rm), *rounds)
		}
		return 0
	}
	label := *name
	if label != "" {
		label += " "
	}
	for i := range cmds {
		fmt.Printf("%s%s: wall median %s min %s · cpu median %s min %s · peak RSS median %.1f MiB\n", label, names[i],
			ms(median(wall[i])), ms(slices.Min(wall[i])), ms(median(cpu[i])), ms(slices.Min(cpu[i])), median(rss[i])/1024)
	}
	for i := 1; i < len(cmds); i++ {
		rw, rc, rm := ratios(wall[i], wall[0]), ratios(cpu[i], cpu[0]), ratios(rss[i], rss[0])
		fmt.Printf("%s%s÷%s per round: wall min %.2f median %.2f · cpu min %.2f median %.2f · peak RSS min %.2f median %.2f (%d rounds)\n",
			label, names[i], names[0], slices.Min(rw), median(rw), slices.Min(rc), median(rc), slices.Min(rm), median(rm), *rounds)
	}
	return 0
}

// split cuts the arguments at each "--" into commands.
func split(args []string) [][]string {
	var cmds [][]string
	var cur []string
	for _, a := range append(args, "--") {
		if a != "--" {
			cur = append(cur, a)
			continue
		}
		if len(cur) > 0 {
			cmds = append(cmds, cur)
		}
		cur = nil
	}
	return cmds
}

func parseCodes(s string) (map[int]bool, error) {
	codes := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not an exit code", f)
		}
		codes[n] = true
	}
	return codes, nil
}

func commandNames(s string, n int) ([]string, error) {
	if s == "" {
		names := make([]string, n)
		for i := range names {
			names[i] = string(rune('A' + i%26))
		}
		return names, nil
	}
	names := strings.Split(s, ",")
	if len(names) != n {
		return nil, fmt.Errorf("%d names for %d commands", len(names), n)
	}
	return names, nil
}

// run runs one command and returns its wall and CPU (user + system) time
// in seconds and its peak resident memory in KiB (0 where the system does
// not report it).
func run(argv []string, ok map[int]bool) (wall, cpu, rss float64, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start).Seconds()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && ok[exit.ExitCode()]) {
		if msg := bytes.TrimSpace(stderr.Bytes()); len(msg) > 0 {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return 0, 0, 0, err
	}
	st := cmd.ProcessState
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		rss = float64(ru.Maxrss)
		if runtime.GOOS == "darwin" {
			rss /= 1024 // bytes there
		}
	}
	return wall, (st.UserTime() + st.SystemTime()).Seconds(), rss, nil
}

// ratios divides each round's measure by the baseline's in the same round
// (0 where the baseline's is 0).
func ratios(a, base []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		if base[i] != 0 {
			out[i] = a[i] / base[i]
		}
	}
	return out
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ms(s float64) string { return fmt.Sprintf("%.1f ms", s*1000) }
