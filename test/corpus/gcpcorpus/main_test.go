package gcpcorpus

import (
	"os"
	"testing"

	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/corpus"
)

func TestMain(m *testing.M) { os.Exit(corpus.Main(m, devenv.PlatformGCP)) }
