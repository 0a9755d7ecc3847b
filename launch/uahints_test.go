package launch

import (
	"reflect"
	"runtime"
	"testing"
)

func TestCompleteLinuxHints(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("the Linux rules")
	}
	arch := map[string]string{"amd64": "x86", "arm64": "arm"}[runtime.GOARCH]
	switched := func(brands ...uaBrand) *uaMetadata {
		return &uaMetadata{Brands: brands, Platform: "Linux"}
	}
	md := switched(uaBrand{Brand: "Not:A-Brand", Version: "8"}, uaBrand{Brand: "Chromium", Version: "156"})
	if !completeLinuxHints(md, "Chrome/156.0.8078.114") {
		t.Fatal("Chromium's hints not completed")
	}
	want := &uaMetadata{
		Brands:          []uaBrand{{Brand: "Not:A-Brand", Version: "8"}, {Brand: "Chromium", Version: "156"}},
		FullVersionList: []uaBrand{{Brand: "Not:A-Brand", Version: "8.0.0.0"}, {Brand: "Chromium", Version: "156.0.8078.114"}},
		FullVersion:     "156.0.8078.114", Platform: "Linux", Architecture: arch, Bitness: "64",
		FormFactors: []string{"Desktop"},
	}
	if !reflect.DeepEqual(md, want) {
		t.Errorf("got %+v\nwant %+v", md, want)
	}
	for name, c := range map[string]struct {
		md      *uaMetadata
		product string
	}{
		"another brand":      {switched(uaBrand{Brand: "Microsoft Edge", Version: "156"}, uaBrand{Brand: "Chromium", Version: "156"}), "Chrome/156.0.8078.114"},
		"another major":      {switched(uaBrand{Brand: "Chromium", Version: "155"}), "Chrome/156.0.8078.114"},
		"no version":         {switched(uaBrand{Brand: "Chromium", Version: "156"}), "HeadlessChrome"},
		"another platform":   {&uaMetadata{Brands: []uaBrand{{Brand: "Chromium", Version: "156"}}, Platform: "Windows"}, "Chrome/156.0.8078.114"},
		"no brands":          {switched(), "Chrome/156.0.8078.114"},
		"nothing learned":    {nil, "Chrome/156.0.8078.114"},
		"odd grease version": {switched(uaBrand{Brand: "Not_A Brand", Version: "x"}, uaBrand{Brand: "Chromium", Version: "156"}), "Chrome/156.0.8078.114"},
	} {
		if completeLinuxHints(c.md, c.product) {
			t.Errorf("%s: completed %+v", name, c.md)
		}
	}
}

func TestParseLowEntropyHints(t *testing.T) {
	md, err := parseLowEntropyHints(`"Not:A-Brand";v="8", "Chromium";v="156"`, `"Linux"`, "?0")
	if err != nil {
		t.Fatal(err)
	}
	want := &uaMetadata{Brands: []uaBrand{{Brand: "Not:A-Brand", Version: "8"}, {Brand: "Chromium", Version: "156"}}, Platform: "Linux"}
	if !reflect.DeepEqual(md, want) {
		t.Errorf("got %+v, want %+v", md, want)
	}
	md, err = parseLowEntropyHints(`"Google Chrome";v="131","Not\"A\\Brand";v="24",  "Chromium";v="131"`, `"Android"`, "?1")
	if err != nil {
		t.Fatal(err)
	}
	want = &uaMetadata{Brands: []uaBrand{{Brand: "Google Chrome", Version: "131"}, {Brand: `Not"A\Brand`, Version: "24"}, {Brand: "Chromium", Version: "131"}}, Platform: "Android", Mobile: true}
	if !reflect.DeepEqual(md, want) {
		t.Errorf("got %+v, want %+v", md, want)
	}
	for _, bad := range [][3]string{
		{``, `"Linux"`, "?0"},
		{`"Chromium"`, `"Linux"`, "?0"},
		{`"Chromium";v=156`, `"Linux"`, "?0"},
		{`"Chromium";v="156" "x";v="1"`, `"Linux"`, "?0"},
		{`"Chromium";v="156",`, `"Linux"`, "?0"},
		{`"Chro` + "\n" + `mium";v="156"`, `"Linux"`, "?0"},
		{`"Chromium";v="156"`, `Linux`, "?0"},
		{`"Chromium";v="156"`, `"Linux" x`, "?0"},
		{`"Chromium";v="156"`, `"Linux"`, ""},
	} {
		if md, err := parseLowEntropyHints(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("%q: read as %+v", bad, md)
		}
	}
}

func FuzzParseLowEntropyHints(f *testing.F) {
	f.Add(`"Not:A-Brand";v="8", "Chromium";v="156"`, `"Linux"`, "?0")
	f.Fuzz(func(t *testing.T, ua, platform, mobile string) {
		md, err := parseLowEntropyHints(ua, platform, mobile)
		if err == nil && (md == nil || len(md.Brands) == 0) {
			t.Fatalf("no brands and no error for %q", ua)
		}
	})
}

// TestGreasedBrands: the brand list Chromium makes for a major version,
// against Sec-CH-UA headers Chrome and Chromium sent: Chromium 156 here
// (TestHeadlessClientHints' plain run), Google Chrome 120, 124 and 131 as
// sites logged them.
func TestGreasedBrands(t *testing.T) {
	for _, c := range []struct {
		major  int
		brand  string
		header string
	}{
		{156, "Chromium", `"Not:A-Brand";v="8", "Chromium";v="156"`},
		{120, "Google Chrome", `"Not_A Brand";v="8", "Chromium";v="120", "Google Chrome";v="120"`},
		{124, "Google Chrome", `"Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99"`},
		{131, "Google Chrome", `"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"`},
	} {
		want, err := parseLowEntropyHints(c.header, `"Linux"`, "?0")
		if err != nil {
			t.Fatal(err)
		}
		if got := greasedBrands(c.major, c.brand); !reflect.DeepEqual(got, want.Brands) {
			t.Errorf("%s %d: got %v, want %v", c.brand, c.major, got, want.Brands)
		}
	}
}

func TestPredictLinuxHints(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("the Linux rules")
	}
	md := predictLinuxHints("Chromium", "Chrome/156.0.8078.114")
	learned := &uaMetadata{Brands: []uaBrand{{Brand: "Not:A-Brand", Version: "8"}, {Brand: "Chromium", Version: "156"}}, Platform: "Linux"}
	if !completeLinuxHints(learned, "Chrome/156.0.8078.114") || !reflect.DeepEqual(md, learned) || !sameLowEntropy(md, learned) {
		t.Errorf("predicted %+v\nlearned %+v", md, learned)
	}
	if sameLowEntropy(md, predictLinuxHints("Chromium", "Chrome/157.0.1.2")) {
		t.Error("another version's brands read as the same")
	}
	for _, product := range []string{"HeadlessChrome", "Chrome/x.0.0.0", "Chrome/0.1.2.3", "Chrome/156.0.8078"} {
		if md := predictLinuxHints("Chromium", product); md != nil {
			t.Errorf("%q: predicted %+v", product, md)
		}
	}
}
