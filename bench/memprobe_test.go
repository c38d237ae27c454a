package bench

import "testing"

func TestMemProbe(t *testing.T) {
	if got := (MemProbe{}).String(); got != "not measured" {
		t.Fatalf("empty probe: %q", got)
	}
	p := MemProbe{Bytes: []int{1 << 20, 16 << 20}, NsPer: []float64{1.44, 12.06}}
	if got, want := p.String(), "1.0 MiB: 1.4 ns, 16.0 MiB: 12.1 ns"; got != want {
		t.Fatalf("String: %q, want %q", got, want)
	}
	m := ProbeMemory()
	if len(m.Bytes) != len(memProbeSizes) || len(m.NsPer) != len(memProbeSizes) {
		t.Fatalf("probe of %d sizes: %+v", len(memProbeSizes), m)
	}
	for i, ns := range m.NsPer {
		if !(ns > 0) || ns > 1e4 {
			t.Fatalf("%d bytes: %v ns per read", m.Bytes[i], ns)
		}
	}
}
