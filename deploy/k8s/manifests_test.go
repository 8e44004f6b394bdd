package k8s

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// decodeStrict decodes a manifest into v, refusing unknown or duplicate
// fields (kubectl --dry-run=client needs an API server; this needs none).
func decodeStrict(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

var shardArg = regexp.MustCompile(`--shard "\$JOB_COMPLETION_INDEX/(\d+)"`)

// TestManifests: every Job decodes strictly into batch/v1 Job; the shard
// Jobs are Indexed, with completions and parallelism equal to the N of
// --shard K/N, K the completion index, and the result file named by it; the
// merges read the files the shards write, from the same volume claim,
// which results-pvc.yaml declares ReadWriteMany.
func TestManifests(t *testing.T) {
	var pvc corev1.PersistentVolumeClaim
	decodeStrict(t, "results-pvc.yaml", &pvc)
	if pvc.Kind != "PersistentVolumeClaim" || len(pvc.Spec.AccessModes) != 1 || pvc.Spec.AccessModes[0] != corev1.ReadWriteMany {
		t.Errorf("results-pvc.yaml: kind %s, access modes %v: want a ReadWriteMany claim", pvc.Kind, pvc.Spec.AccessModes)
	}
	files, _ := filepath.Glob("*.yaml")
	jobs := 0
	for _, f := range files {
		if f == "results-pvc.yaml" {
			continue
		}
		jobs++
		var job batchv1.Job
		decodeStrict(t, f, &job)
		if job.APIVersion != "batch/v1" || job.Kind != "Job" {
			t.Errorf("%s: %s %s, want batch/v1 Job", f, job.APIVersion, job.Kind)
		}
		pod := job.Spec.Template.Spec
		if pod.RestartPolicy != corev1.RestartPolicyNever || len(pod.Containers) != 1 {
			t.Fatalf("%s: restart policy %q, %d containers: want Never and one", f, pod.RestartPolicy, len(pod.Containers))
		}
		c := pod.Containers[0]
		script := strings.Join(append(c.Command, c.Args...), " ")
		if len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim == nil || pod.Volumes[0].PersistentVolumeClaim.ClaimName != pvc.Name {
			t.Errorf("%s: want the one volume claim %s", f, pvc.Name)
		}
		if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/results" {
			t.Errorf("%s: want the volume mounted at /results", f)
		}
		if req, lim := c.Resources.Requests.Memory(), c.Resources.Limits.Memory(); lim.IsZero() || !req.Equal(*lim) {
			t.Errorf("%s: memory request %v, limit %v: want a limit (ftcheck's bound) and an equal request", f, req, lim)
		}
		kind := strings.TrimSuffix(strings.TrimSuffix(f, "-shards.yaml"), "-merge.yaml")
		if strings.HasSuffix(f, "-merge.yaml") {
			if want := "ftcheck merge"; !strings.Contains(script, want) || !strings.Contains(script, "/results/"+kind+"-*.shard") {
				t.Errorf("%s: %q does not merge /results/%s-*.shard", f, script, kind)
			}
			continue
		}
		m := shardArg.FindStringSubmatch(script)
		if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion || m == nil {
			t.Fatalf("%s: want an Indexed Job whose command has --shard \"$JOB_COMPLETION_INDEX/N\"", f)
		}
		n := m[1]
		if fmt.Sprint(*job.Spec.Completions) != n || fmt.Sprint(*job.Spec.Parallelism) != n {
			t.Errorf("%s: completions %d, parallelism %d, --shard K/%s: want them equal", f, *job.Spec.Completions, *job.Spec.Parallelism, n)
		}
		if want := `--result "/results/` + kind + `-$JOB_COMPLETION_INDEX.shard"`; !strings.Contains(script, want) {
			t.Errorf("%s: %q lacks %s", f, script, want)
		}
		if !strings.Contains(script, "ftcheck "+kind+" ") {
			t.Errorf("%s: %q does not run ftcheck %s", f, script, kind)
		}
	}
	if jobs != 4 {
		t.Errorf("%d Job manifests, want 4 (check and simulate, shards and merge)", jobs)
	}
}
