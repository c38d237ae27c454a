package plan

// TopKBarKey is the shape rule topk-bar needs: a Sort under LIMIT over a
// Project over a node scan (filters between them allowed, which keep the
// scan's columns), whose first key is a projected property of the scanned
// node. It returns the property's key and the column of the node in the
// Project's input. The executor then reads that property through the
// column's integer or float view by node id, before the Project gathers
// anything.
func TopKBarKey(s *Sort) (nodeCol int, key string, ok bool) {
	if s.Limit == nil || len(s.Keys) == 0 {
		return 0, "", false
	}
	proj, isProj := s.Input.(*Project)
	if !isProj || s.Keys[0].Col >= len(proj.Exprs) {
		return 0, "", false
	}
	col, key, ok := columnProperty(proj.Exprs[s.Keys[0].Col])
	if !ok {
		return 0, "", false
	}
	in := proj.Input
	for {
		f, isFilter := in.(*Filter)
		if !isFilter {
			break
		}
		in = f.Input
	}
	scan, isScan := in.(*NodeScan)
	if !isScan || col != 0 || len(scan.Cols) == 0 {
		return 0, "", false
	}
	return col, key, true
}

// TopKBarKeys is the most keys a top-k's bar carries: the first and the
// two tie keys.
const TopKBarKeys = 3

// TopKBarTieKeys are the Sort's second and third keys, as far as each is
// a projected property of the same scanned node as the first (TopKBarKey
// holds): the bar's test then narrows the rows tied with the bar on the
// first key by the second, and those tied on both by the third. Empty
// when the second key is no such property.
func TopKBarTieKeys(s *Sort) []string {
	if _, _, ok := TopKBarKey(s); !ok {
		return nil
	}
	proj := s.Input.(*Project)
	var keys []string
	for _, k := range s.Keys[1:min(TopKBarKeys, len(s.Keys))] {
		if k.Col >= len(proj.Exprs) {
			break
		}
		col, key, ok := columnProperty(proj.Exprs[k.Col])
		if !ok || col != 0 {
			break
		}
		keys = append(keys, key)
	}
	return keys
}
