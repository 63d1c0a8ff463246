package azure

import (
	"sort"
	"sync"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Delays are how long each long-running operation lasts, by name
// ("resourceGroupDeleting", "privateLinkServiceCreating", ...). Resource
// helpers register their names with a fast and a realistic default;
// the control API can override any of them.
type Delays map[string]sim.Duration

type delayDefault struct{ fast, realistic time.Duration }

var (
	delayMu       sync.RWMutex
	delayDefaults = map[string]delayDefault{}
)

// RegisterDelay declares a named delay with its fast preset (short enough
// for tests, long enough that the intermediate state is observable) and
// its realistic preset (what Azure takes in practice).
func RegisterDelay(name string, fast, realistic time.Duration) {
	delayMu.Lock()
	defer delayMu.Unlock()
	delayDefaults[name] = delayDefault{fast: fast, realistic: realistic}
}

// FastDelays is every registered delay at its fast preset.
func FastDelays() Delays { return presetDelays(func(d delayDefault) time.Duration { return d.fast }) }

// RealisticDelays is every registered delay at its realistic preset.
func RealisticDelays() Delays {
	return presetDelays(func(d delayDefault) time.Duration { return d.realistic })
}

func presetDelays(pick func(delayDefault) time.Duration) Delays {
	delayMu.RLock()
	defer delayMu.RUnlock()
	out := Delays{}
	for name, d := range delayDefaults {
		out[name] = sim.Duration(pick(d))
	}
	return out
}

// Names lists the delays in order, for stable output.
func (d Delays) Names() []string {
	names := make([]string, 0, len(d))
	for n := range d {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// delay returns a named delay: the configured value, else the fast default.
func (c *Cloud) delay(name string) time.Duration {
	c.delaysMu.Lock()
	defer c.delaysMu.Unlock()
	if d, ok := c.delays[name]; ok {
		return d.D()
	}
	delayMu.RLock()
	defer delayMu.RUnlock()
	return delayDefaults[name].fast
}

// SetDelays replaces the configured delays; names left out keep their fast default.
func (c *Cloud) SetDelays(d Delays) {
	c.delaysMu.Lock()
	defer c.delaysMu.Unlock()
	c.delays = Delays{}
	for k, v := range d {
		c.delays[k] = v
	}
}

// Delays returns every registered delay as it is in force.
func (c *Cloud) Delays() Delays {
	out := FastDelays()
	c.delaysMu.Lock()
	defer c.delaysMu.Unlock()
	for k, v := range c.delays {
		out[k] = v
	}
	return out
}
