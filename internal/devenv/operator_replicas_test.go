package devenv

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/hcplink/hcplink/internal/operator"
)

func TestRestartDelayIsTheKubeletsBackOff(t *testing.T) {
	for _, tc := range []struct {
		exits int
		want  time.Duration
	}{
		{1, 10 * time.Second},
		{2, 20 * time.Second},
		{3, 40 * time.Second},
		{5, 160 * time.Second},
		{6, 5 * time.Minute},
		{40, 5 * time.Minute},
	} {
		if got := restartDelay(restartBackOff, tc.exits); got != tc.want {
			t.Errorf("after %d exits in a row: %v, want %v", tc.exits, got, tc.want)
		}
	}
}

// A replica whose run ends on its own (it lost the Lease under a slow API
// server, and controller-runtime's manager stops then) is started again,
// as the kubelet restarts the container; one stopped on purpose is not.
func TestAReplicaThatStopsOnItsOwnIsStartedAgain(t *testing.T) {
	var runs atomic.Int32
	e := &Env{Platform: PlatformAzure, replicas: []*operatorReplica{{}}, operatorLog: logr.Discard(), replicaBackOff: time.Millisecond,
		runOperator: func(ctx context.Context, _ operator.Options) error {
			if runs.Add(1) == 1 {
				return errors.New("leader election lost")
			}
			<-ctx.Done()
			return ctx.Err()
		}}
	e.StartOperatorReplica(0)
	waitForRuns(t, &runs, 2)
	if got := e.OperatorReplicaExits(); got != 1 {
		t.Errorf("OperatorReplicaExits = %d, want 1", got)
	}
	if err := e.StopOperatorReplica(0); err != nil {
		t.Errorf("stopping the restarted replica: %v", err)
	}
	e.StartOperatorReplica(0)
	waitForRuns(t, &runs, 3)
	if err := e.StopOperatorReplica(0); err != nil {
		t.Errorf("stopping it: %v", err)
	}
	if got := e.OperatorReplicaExits(); got != 1 {
		t.Errorf("a stop on purpose counted as an exit: OperatorReplicaExits = %d, want 1", got)
	}
}

func waitForRuns(t *testing.T, runs *atomic.Int32, want int32) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return runs.Load() == want, nil
	})
	if err != nil {
		t.Fatalf("the replica ran %d times, want %d", runs.Load(), want)
	}
}
