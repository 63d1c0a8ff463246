package aws

import (
	"maps"
	"time"
)

// EC2's eventual consistency, for the resources hcplink makes (VPC
// endpoints, endpoint services, security groups): with sim.Consistency's
// lags set, a new one stays out of describes and listings for CreateLag
// (describing it by ID says it does not exist, as AWS documents for a
// security group right after CreateSecurityGroup), and a deleted one still
// shows, as it last was, for DeleteLag. Only reads lag; every other call
// sees the truth.
type readLag struct {
	appearsAt map[string]time.Time // ID → when describes first show it
	ghosts    map[string]ghost     // ID → a deleted resource still shown
}

type ghost struct {
	until time.Time
	obj   any // the *VPCEndpoint, *EndpointService or *SecurityGroup as deleted
	tags  map[string]string
}

func (r *Region) lag() *readLag {
	if r.readLag == nil {
		r.readLag = &readLag{appearsAt: map[string]time.Time{}, ghosts: map[string]ghost{}}
	}
	return r.readLag
}

// noteCreated hides a new resource from reads for the create lag in force.
func (call *Call) noteCreated(id string) {
	if d := call.Cloud.faults.ConsistencyLags().CreateLag.D(); d > 0 {
		call.Region.lag().appearsAt[id] = call.Now.Add(d)
	}
}

// noteDeleted keeps a deleted resource in reads for the delete lag in
// force. It is called before the resource's tags are forgotten.
func (call *Call) noteDeleted(id string, obj any) {
	r := call.Region
	if d := call.Cloud.faults.ConsistencyLags().DeleteLag.D(); d > 0 {
		r.lag().ghosts[id] = ghost{until: call.Now.Add(d), obj: obj, tags: maps.Clone(r.TagsOf(id))}
	}
	delete(r.lag().appearsAt, id)
}

// readView is what a describe sees of live: the resources that have
// appeared, and the ghosts of this type not yet gone.
func readView[T any](call *Call, live map[string]*T) map[string]*T {
	r := call.Region
	if r.readLag == nil || (len(r.readLag.appearsAt) == 0 && len(r.readLag.ghosts) == 0) {
		return live
	}
	lag := r.readLag
	view := make(map[string]*T, len(live))
	for id, v := range live {
		if at, hidden := lag.appearsAt[id]; hidden {
			if call.Now.Before(at) {
				continue
			}
			delete(lag.appearsAt, id)
		}
		view[id] = v
	}
	for id, g := range lag.ghosts {
		if !call.Now.Before(g.until) {
			delete(lag.ghosts, id)
			continue
		}
		if v, ok := g.obj.(*T); ok && live[id] == nil {
			view[id] = v
		}
	}
	return view
}

// readTags are a resource's tags as a describe shows them: a ghost keeps
// the tags it had.
func (r *Region) readTags(id string) map[string]string {
	if tags := r.TagsOf(id); tags != nil {
		return tags
	}
	if r.readLag != nil {
		return r.readLag.ghosts[id].tags
	}
	return nil
}
