package fuzz

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestBuildScriptListsEveryTarget: oss-fuzz/build.sh, which OSS-Fuzz and
// ClusterFuzzLite run, builds every Fuzz function of this package and names
// none that does not exist.
func TestBuildScriptListsEveryTarget(t *testing.T) {
	script, err := os.ReadFile("../oss-fuzz/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	listed := regexp.MustCompile(`(?m)^(Fuzz\w+) \w+$`).FindAllStringSubmatch(string(script), -1)
	var inScript []string
	for _, m := range listed {
		inScript = append(inScript, m[1])
	}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var defined []string
	fn := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fn.FindAllStringSubmatch(string(src), -1) {
			defined = append(defined, m[1])
		}
	}
	if len(defined) == 0 {
		t.Fatal("found no Fuzz function: is the test looking at the right folder?")
	}
	slices.Sort(inScript)
	slices.Sort(defined)
	if !slices.Equal(inScript, defined) {
		t.Errorf("oss-fuzz/build.sh builds %v; ./fuzz defines %v", inScript, defined)
	}
}
