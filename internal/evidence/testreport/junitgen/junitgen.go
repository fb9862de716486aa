// Package junitgen writes large synthetic JUnit reports for the
// benchmarks (the testreport benchmarks and scripts/bench.sh): the shape of
// a big Surefire or pytest run, of a chosen size.
package junitgen

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// Cases is the number of testcases in each suite; of each 400, 20 fail
// with a stack trace, 4 error, 8 are skipped and 40 carry captured output.
const Cases = 400

// WriteFile writes a report of about size bytes (at least size, ending
// after the suite that reaches it) to path.
func WriteFile(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Write writes a report of about size bytes to w.
func Write(w io.Writer, size int64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	stack := strings.Repeat("\tat com.example.service.Handler.process(Handler.java:123)\n", 24)
	out := strings.Repeat("INFO  request handled in 3 ms &amp; cached\n", 12)
	var written int64
	count := func(n int, _ error) { written += int64(n) }
	count(fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"bench\">\n"))
	for s := 0; written < size; s++ {
		count(fmt.Fprintf(bw, "  <testsuite name=\"com.example.Suite%d\" tests=\"%d\" failures=\"20\" errors=\"4\" skipped=\"8\" time=\"12.5\">\n", s, Cases))
		count(fmt.Fprintf(bw, "    <properties><property name=\"java.version\" value=\"17\"/><property name=\"run\" value=\"%d\"/></properties>\n", s))
		for c := range Cases {
			count(fmt.Fprintf(bw, "    <testcase name=\"test%d_handlesRequest\" classname=\"com.example.Suite%d\" time=\"0.%03d\"", c, s, c))
			switch {
			case c%20 == 3:
				count(fmt.Fprintf(bw, ">\n      <failure message=\"expected: &lt;%d&gt; but was: &lt;%d&gt;\" type=\"org.opentest4j.AssertionFailedError\"><![CDATA[org.opentest4j.AssertionFailedError: expected: <%d> but was: <%d>\n%s]]></failure>\n    </testcase>\n", c, c+1, c, c+1, stack))
			case c%100 == 7:
				count(fmt.Fprintf(bw, ">\n      <error message=\"Connection refused\" type=\"java.net.ConnectException\">java.net.ConnectException: Connection refused\n%s</error>\n    </testcase>\n", stack))
			case c%50 == 11:
				count(fmt.Fprintf(bw, ">\n      <skipped message=\"not on this platform\"/>\n    </testcase>\n"))
			case c%10 == 5:
				count(fmt.Fprintf(bw, ">\n      <system-out>%s</system-out>\n    </testcase>\n", out))
			default:
				count(fmt.Fprintf(bw, "/>\n"))
			}
		}
		count(fmt.Fprintf(bw, "  </testsuite>\n"))
	}
	count(fmt.Fprintf(bw, "</testsuites>\n"))
	return bw.Flush()
}
