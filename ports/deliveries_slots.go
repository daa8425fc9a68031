package ports

import "sync"

// slots are the workers: how many attempts run, in total, to each
// endpoint (by EndpointSeq) and to each partner's endpoints (by
// Partner), and of which deliveries. A delivery under way here is never
// started twice here, even when its attempt outlived its lease (a paused
// process): another replica may take it, not this one again.
type slots struct {
	mu          sync.Mutex
	total       int
	perEndpoint int
	perPartner  int
	inUse       int
	running     map[int64]int
	partners    map[string]int
	deliveries  map[int64]bool
	saturated   bool // the last Due filled every free worker
	widened     bool // a worker of an endpoint or partner at its share, or of a full pool, ended since takeWidened
}

// free returns the free workers, the endpoints at their share and the
// partners at theirs.
func (s *slots) free() (int, []int64, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var busy []int64
	for e, n := range s.running {
		if n >= s.perEndpoint {
			busy = append(busy, e)
		}
	}
	var busyPartners []string
	for p, n := range s.partners {
		if n >= s.perPartner {
			busyPartners = append(busyPartners, p)
		}
	}
	return s.total - s.inUse, busy, busyPartners
}

// take starts ref on a worker, or says whether its endpoint's or
// partner's share was what refused it (Run then looks again at once,
// leaving them out: the free workers are for the others).
func (s *slots) take(ref DeliveryRef) (ok, share bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inUse >= s.total || s.deliveries[ref.ID] {
		return false, false
	}
	if s.running[ref.EndpointSeq] >= s.perEndpoint || ref.Partner != "" && s.partners[ref.Partner] >= s.perPartner {
		return false, true
	}
	s.inUse++
	s.running[ref.EndpointSeq]++
	if ref.Partner != "" {
		s.partners[ref.Partner]++
	}
	s.deliveries[ref.ID] = true
	return true, false
}

// give frees a worker and says whether Run should look again: when the
// last Due filled every free worker, or when this worker's endpoint or
// partner was at its share or every worker was in use (deliveries left
// out before may be taken now).
func (s *slots) give(ref DeliveryRef) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running[ref.EndpointSeq] >= s.perEndpoint || s.inUse >= s.total ||
		ref.Partner != "" && s.partners[ref.Partner] >= s.perPartner {
		s.widened = true
	}
	s.inUse--
	if s.running[ref.EndpointSeq]--; s.running[ref.EndpointSeq] <= 0 {
		delete(s.running, ref.EndpointSeq)
	}
	if ref.Partner != "" {
		if s.partners[ref.Partner]--; s.partners[ref.Partner] <= 0 {
			delete(s.partners, ref.Partner)
		}
	}
	delete(s.deliveries, ref.ID)
	return s.saturated || s.widened
}

// takeWidened says whether a worker widened the slots since it was last
// asked, and forgets it.
func (s *slots) takeWidened() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.widened
	s.widened = false
	return w
}

func (s *slots) setSaturated(v bool) {
	s.mu.Lock()
	s.saturated = v
	s.mu.Unlock()
}
