package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/snapshot"
)

// walkBench times the in-page walk alone (snapshot.JSTree's read
// function), for each script of scripts side by side on the same pages in
// one browser, each in an isolated world of its own: rounds interleave the
// scripts, each call walks five times, and per page it reports the fastest
// walk's wall time in the page (performance.now) and the CPU time the
// renderers' main threads spent per walk (min and median over the calls).
// It leaves out the CDP round trip and lyrad's own work; the CPU time moves
// far less than wall time on a loaded machine. A script is a file holding
// a JSTree function (written by -print-js, say from another commit's tree)
// or "this" for this tree's. Each walk after the first finds the page as
// the last one left it; with WALK_COLD set, every walk is made to start
// as after a change to the page. With WALK_DUMP set to a directory, each
// script's answers (after a change, then with the page still) are written
// there as PAGE.I.json, to compare the scripts' output. With WALK_SAME
// set, the answers of every script are compared with the first's (the
// whole page, nested and not, after a change and still) and the bench
// fails when one differs.
func walkBench(scripts []string, pagesDir, browser string, rounds, profile int, eval string) error {
	var srcs []string
	for _, s := range scripts {
		if s == "this" {
			srcs = append(srcs, snapshot.JSTree)
			continue
		}
		b, err := os.ReadFile(s)
		if err != nil {
			return err
		}
		srcs = append(srcs, string(b))
	}
	names, err := pageNames(pagesDir)
	if err != nil {
		return err
	}
	base, stop, err := serve(pagesDir)
	if err != nil {
		return err
	}
	defer stop()
	dir, err := os.MkdirTemp("", "walk-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	proc, err := chrome.Launch(ctx, chrome.LaunchOptions{Path: browser, ProfileDir: dir, Headless: true, ExtraArgs: strings.Fields(os.Getenv("WALK_BENCH_ARGS"))})
	if err != nil {
		return err
	}
	defer proc.Close(5 * time.Second)
	conn, err := cdpconn.Dial(ctx, proc.WebSocketURL(), cdpconn.Options{})
	if err != nil {
		return err
	}
	defer conn.Close()
	tgt, err := cdp.Call(ctx, conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
	if err != nil {
		return err
	}
	flatten := true
	att, err := cdp.Call(ctx, conn.Browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: tgt.TargetID, Flatten: &flatten})
	if err != nil {
		return err
	}
	s := conn.Session(att.SessionID)
	if _, err := cdp.Call(ctx, s, page.Enable, page.EnableParams{}); err != nil {
		return err
	}
	fmt.Printf("in-page walk, ms: wall time in the page (min, median of %d rounds) and the CPU time of the renderers' main threads over the call (min, median)\n", rounds)
	head := fmt.Sprintf("%-18s", "page")
	for i := range srcs {
		head += fmt.Sprintf(" | %7s %7s %7s %7s %5s", fmt.Sprintf("min%d", i), fmt.Sprintf("med%d", i), "cpumin", "cpumed", "items")
	}
	if len(srcs) == 2 {
		head += " | cpumed1/cpumed0"
	}
	fmt.Println(head)
	prod := 1.0
	var differ []string
	for _, name := range names {
		loaded, stopLoaded := s.Subscribe(page.LoadEventFired.Method)
		nav, err := cdp.Call(ctx, s, page.Navigate, page.NavigateParams{URL: base + "/" + name})
		if err != nil {
			stopLoaded()
			return fmt.Errorf("%s: %w", name, err)
		}
		select {
		case <-loaded:
		case <-time.After(60 * time.Second):
		}
		stopLoaded()
		time.Sleep(500 * time.Millisecond) // the page's own scripts settle
		call := func(id runtime.ExecutionContextID, fn string, args []*runtime.CallArgument, out any) error {
			t := true
			r, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: fn, ExecutionContextID: id, Arguments: args, ReturnByValue: &t, AwaitPromise: &t})
			if err != nil {
				return err
			}
			if r.ExceptionDetails != nil {
				return fmt.Errorf("%s", r.ExceptionDetails.Text)
			}
			if out == nil || r.Result == nil {
				return nil
			}
			return jsonv2.Unmarshal(r.Result.Value, out)
		}
		worlds := make([]runtime.ExecutionContextID, len(srcs))
		for i, src := range srcs {
			w, err := cdp.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: nav.FrameID, WorldName: fmt.Sprintf("walkbench%d", i)})
			if err != nil {
				return err
			}
			worlds[i] = w.ExecutionContextID
			if err := call(w.ExecutionContextID, src, []*runtime.CallArgument{{Value: jsonv2.Value("null")}}, nil); err != nil {
				return fmt.Errorf("%s: script %d: %w", name, i, err)
			}
		}
		// Five walks a call; the fastest is the one least disturbed by the
		// machine's other work.
		const timed = `function(cold) {
			const T = globalThis.__lyradTree;
			let best = Infinity, r;
			for (let i = 0; i < 5; i++) {
				if (cold) dispatchEvent(new Event('toggle'));
				const t0 = performance.now();
				r = T.read(null);
				best = Math.min(best, performance.now() - t0);
			}
			return [best, 0, r.items.length];
		}`
		if eval != "" {
			var v any
			if err := call(worlds[0], eval, nil, &v); err != nil {
				return fmt.Errorf("%s: eval: %w", name, err)
			}
			b, _ := jsonv2.Marshal(v)
			fmt.Printf("%-18s eval: %s\n", name, b)
		}
		rend := renderers(proc.PID())
		// WALK_COLD: every walk as after a change to the page (an event
		// that drops what a read keeps while the page stands still).
		coldArg := []*runtime.CallArgument{{Value: jsonv2.Value(strconv.FormatBool(os.Getenv("WALK_COLD") != ""))}}
		cpus := make([][]float64, len(srcs))
		walks := make([][]float64, len(srcs))
		jsons := make([][]float64, len(srcs))
		items := make([]int, len(srcs))
		for r := 0; r < rounds; r++ {
			for i := range srcs {
				var res []float64
				c0 := cpuNs(rend)
				err := call(worlds[i], timed, coldArg, &res)
				cpus[i] = append(cpus[i], float64(cpuNs(rend)-c0)/5e6)
				if err != nil || len(res) != 3 {
					return fmt.Errorf("%s: script %d: %v", name, i, err)
				}
				walks[i] = append(walks[i], res[0])
				jsons[i] = append(jsons[i], res[1])
				items[i] = int(res[2])
			}
		}
		if os.Getenv("WALK_SAME") != "" {
			// The same reads as WALK_DUMP's, plain and nested: each world
			// has its own id table, filled in the same order by walks
			// that meet the same elements.
			const same = `function() {
				const T = globalThis.__lyradTree, out = [];
				for (const region of [null, {nest: true}]) {
					dispatchEvent(new Event('toggle'));
					const a = T.read(region);
					const b = T.read(region);
					delete a.token; delete b.token;
					out.push(a, b);
				}
				return JSON.stringify(out);
			}`
			var first string
			for i := range srcs {
				var js string
				if err := call(worlds[i], same, nil, &js); err != nil {
					return fmt.Errorf("%s: same %d: %w", name, i, err)
				}
				if i == 0 {
					first = js
				} else if js != first {
					differ = append(differ, fmt.Sprintf("%s (script %d)", name, i))
				} else {
					fmt.Printf("%-18s script %d answers as script 0 (%d bytes)\n", name, i, len(js))
				}
			}
		}
		if dir := os.Getenv("WALK_DUMP"); dir != "" {
			// Each script's answer, after a change and then again with
			// the page still (the token left out: it is the world's), to
			// compare scripts' output.
			const both = `function() {
				const T = globalThis.__lyradTree;
				dispatchEvent(new Event('toggle'));
				const a = T.read(null);
				const b = T.read(null);
				delete a.token; delete b.token;
				return JSON.stringify([a, b]);
			}`
			for i := range srcs {
				var js string
				if err := call(worlds[i], both, nil, &js); err != nil {
					return fmt.Errorf("%s: dump %d: %w", name, i, err)
				}
				if err := os.WriteFile(fmt.Sprintf("%s/%s.%d.json", dir, name, i), []byte(js), 0o644); err != nil {
					return err
				}
			}
		}
		if os.Getenv("WALK_XFER") != "" {
			// The answer's way back: as an object (returnByValue) or as
			// one JSON string, timed from here, decoded as page.ReadTree
			// would.
			var obj, str []float64
			for r := 0; r < rounds; r++ {
				t0 := time.Now()
				var o struct {
					Items [][]any `json:"items"`
				}
				if err := call(worlds[0], `function() { return globalThis.__lyradTree.read(null); }`, nil, &o); err != nil {
					return err
				}
				obj = append(obj, float64(time.Since(t0).Microseconds())/1000)
				t0 = time.Now()
				var js string
				if err := call(worlds[0], `function() { return JSON.stringify(globalThis.__lyradTree.read(null)); }`, nil, &js); err != nil {
					return err
				}
				var o2 struct {
					Items [][]any `json:"items"`
				}
				if err := jsonv2.Unmarshal([]byte(js), &o2); err != nil {
					return err
				}
				str = append(str, float64(time.Since(t0).Microseconds())/1000)
			}
			fmt.Printf("  %s transfer: object min %.2f med %.2f | string min %.2f med %.2f ms\n", name, slices.Min(obj), med(obj), slices.Min(str), med(str))
		}
		if profile >= 0 && profile < len(srcs) {
			if err := profileWalk(ctx, s, func() error { return call(worlds[profile], timed, coldArg, nil) }); err != nil {
				return err
			}
		}
		line := fmt.Sprintf("%-18s", name)
		for i := range srcs {
			line += fmt.Sprintf(" | %7.2f %7.2f %7.2f %7.2f %5d", slices.Min(walks[i]), med(walks[i]), slices.Min(cpus[i]), med(cpus[i]), items[i])
		}
		if len(srcs) == 2 {
			q := max(med(cpus[1]), 0.1) / max(med(cpus[0]), 0.1)
			prod *= q
			line += fmt.Sprintf(" | %5.2f", q)
		}
		fmt.Println(line)
	}
	if len(srcs) == 2 {
		fmt.Printf("geometric mean cpumed1/cpumed0: %.3f\n", math.Pow(prod, 1/float64(len(names))))
	}
	if len(differ) > 0 {
		return fmt.Errorf("answers differ from script 0's: %s", strings.Join(differ, ", "))
	}
	return nil
}

func med(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// pageNames are the saved pages and the generated ones, in the order the
// bench reads them.
func pageNames(pagesDir string) ([]string, error) {
	var names []string
	ents, err := os.ReadDir(pagesDir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".html") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no pages in %s", pagesDir)
	}
	slices.Sort(names)
	return append(names, "large-form.html", "app.html", "tiny.html"), nil
}

// profileWalk runs a walk 30 times under V8's sampling profiler and prints
// where the time went: per function, the share of samples it was on top
// of the stack (self) and anywhere in it (total).
func profileWalk(ctx context.Context, s *cdpconn.Session, walk func() error) error {
	if _, err := cdp.Call(ctx, s, profiler.Enable, cdp.Empty{}); err != nil {
		return err
	}
	defer cdp.Call(ctx, s, profiler.Disable, cdp.Empty{})
	cdp.Call(ctx, s, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 50})
	if _, err := cdp.Call(ctx, s, profiler.Start, cdp.Empty{}); err != nil {
		return err
	}
	for i := 0; i < 30; i++ {
		if err := walk(); err != nil {
			return err
		}
	}
	r, err := cdp.Call(ctx, s, profiler.Stop, cdp.Empty{})
	if err != nil {
		return err
	}
	parent := map[int64]int64{}
	byID := map[int64]*profiler.ProfileNode{}
	for _, n := range r.Profile.Nodes {
		byID[n.ID] = n
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	key := func(n *profiler.ProfileNode) string {
		f := n.CallFrame
		if f.URL == "" && f.LineNumber <= 0 {
			return f.FunctionName
		}
		return fmt.Sprintf("%s:%d", f.FunctionName, f.LineNumber+1)
	}
	self, total := map[string]int{}, map[string]int{}
	all := 0
	var span int64
	for _, d := range r.Profile.TimeDeltas {
		span += d
	}
	msPer := float64(span) / 1000 / float64(max(1, len(r.Profile.Samples))) / 30 // ms of one walk per sample
	for _, id := range r.Profile.Samples {
		n := byID[id]
		if n == nil {
			continue
		}
		k := key(n)
		if k == "(idle)" || k == "(program)" {
			continue
		}
		all++
		self[k]++
		seen := map[string]bool{}
		for c, ok := id, true; ok; c, ok = parent[c] {
			if kk := key(byID[c]); !seen[kk] {
				seen[kk] = true
				total[kk]++
			}
		}
	}
	// Callers of the natives (DOM calls and builtins), and the hottest
	// lines of the script's own functions.
	callers := map[string]map[string]int{}
	lines := map[string]int{}
	for _, n := range r.Profile.Nodes {
		k := key(n)
		if p, ok := parent[n.ID]; ok && n.CallFrame.LineNumber <= 0 && n.HitCount > 0 {
			if callers[k] == nil {
				callers[k] = map[string]int{}
			}
			callers[k][key(byID[p])] += int(n.HitCount)
		}
		for _, t := range n.PositionTicks {
			lines[fmt.Sprintf("%s@%d", n.CallFrame.FunctionName, t.Line)] += int(t.Ticks)
		}
	}
	keys := make([]string, 0, len(total))
	for k := range total {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return self[b] - self[a] })
	fmt.Printf("  profile: %d samples, %.2f ms a walk (self ms, total ms a walk)\n", all, float64(all)*msPer)
	for i, k := range keys {
		if i >= 40 {
			break
		}
		fmt.Printf("    %6.2f self %6.2f total  %s", float64(self[k])*msPer, float64(total[k])*msPer, k)
		if c := callers[k]; c != nil {
			ck := make([]string, 0, len(c))
			for k := range c {
				ck = append(ck, k)
			}
			slices.SortFunc(ck, func(a, b string) int { return c[b] - c[a] })
			for j, k := range ck {
				if j >= 4 {
					break
				}
				fmt.Printf("  <%s %d", k, c[k])
			}
		}
		fmt.Println()
	}
	lk := make([]string, 0, len(lines))
	for k := range lines {
		lk = append(lk, k)
	}
	slices.SortFunc(lk, func(a, b string) int { return lines[b] - lines[a] })
	fmt.Print("    hot lines:")
	for i, k := range lk {
		if i >= 20 {
			break
		}
		fmt.Printf(" %s %.1f%%", k, 100*float64(lines[k])/float64(all))
	}
	fmt.Println()
	return nil
}

// renderers are the schedstat files of the main threads of the browser's
// renderer processes (Linux): the CPU time they count goes on while the
// thread runs only, so it moves far less than wall time on a loaded
// machine.
func renderers(browser int) []string {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	var out []string
	for pid := range parent {
		under := false
		for p, n := parent[pid], 0; p > 1 && n < 10; p, n = parent[p], n+1 {
			if p == browser {
				under = true
				break
			}
		}
		if !under {
			continue
		}
		cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(cl), "--type=renderer") {
			out = append(out, fmt.Sprintf("/proc/%d/task/%d/schedstat", pid, pid))
		}
	}
	return out
}

// cpuNs is the CPU time the threads have run, in ns.
func cpuNs(files []string) int64 {
	var sum int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if fs := strings.Fields(string(b)); len(fs) > 0 {
			n, _ := strconv.ParseInt(fs[0], 10, 64)
			sum += n
		}
	}
	return sum
}
