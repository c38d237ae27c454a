// gapref: same-run references for Quiver's algorithm benchmark (make
// bench-algo): the four GAP Benchmark Suite kernels issue 14 compares with,
// written here from their published descriptions, so that the harness can
// time compiled kernels on the same graph, machine and minute as Quiver.
//
//   pr    pull PageRank (Beamer, Asanovic, Patterson, "The GAP Benchmark
//         Suite", arXiv:1508.03619): float scores, each vertex's
//         contribution computed once per iteration, every vertex summing
//         its in-neighbours' contributions, a fixed number of iterations;
//         plus the sink mass, so that it computes Quiver's (Graphalytics')
//         scores;
//   bfs   direction-optimizing BFS (Beamer, Asanovic, Patterson,
//         "Direction-Optimizing Breadth-First Search", SC 2012): top-down
//         steps over a queue, bottom-up steps over a frontier bitmap when
//         the frontier's edges exceed the unexplored edges / 15, back to
//         top-down when the frontier shrinks below n / 18;
//   sssp  delta-stepping (Meyer, Sanders 2003) as GAP runs it: per-thread
//         bins of width delta, the smallest non-empty bin processed next,
//         distances lowered by compare-and-swap;
//   cc    Afforest (Sutton, Ben-Nun, Barak, IPDPS 2018): link each vertex
//         to its first two neighbours, compress, find the most frequent
//         component from 1024 samples, then link the rest of the edges of
//         the vertices outside it, and compress.
//
// All run in parallel with OpenMP. The graph is
// bench/data/kron<scale>-<seed>/edges.csv (a header line, then
// from,to,weight per line), read undirected: each edge is one arc each way,
// parallel edges kept, as Quiver's projection reads it; neighbour lists
// sorted by vertex, as GAP's builder leaves them; vertex ids as generated.
//
// Protocol: after loading it prints "ready <vertices> <arcs>" on stdout,
// then answers one line per command on stdin:
//
//   pr [hub]   -> time <seconds> <sum of squared scores> <largest score>
//   bfs <src>  -> time <seconds> <vertices reached> <sum of their depths>
//   sssp <src> -> time <seconds> <vertices reached> <sum of their distances>
//   cc         -> time <seconds> <components> <vertices of the largest>
//
// "pr hub" runs PageRank over the graph renumbered by decreasing degree, as
// Quiver's projections number it (the kernel is the same; only the
// numbering, and so the cache, differ). It exits at end of input.
//
// Build: g++ -O3 -march=native -fopenmp -o gapref gapref.cc
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <omp.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

typedef uint32_t NodeID;
typedef float ScoreT;
typedef int32_t WeightT;
static const float kDamp = 0.85f;

struct CSR {
  int64_t n = 0;
  std::vector<int64_t> off;
  std::vector<NodeID> nbr;
};

// WArc is an arc of the weighted graph (GAP's NodeWeight).
struct WArc {
  NodeID v;
  WeightT w;
};

struct Graph {
  CSR g;                  // generator numbering
  CSR hub;                // by decreasing degree
  std::vector<WArc> warc; // g's arcs with weights, same offsets as g
};

static bool parse_u64(const char *&p, const char *end, uint64_t &v) {
  v = 0;
  const char *s = p;
  while (p < end && *p >= '0' && *p <= '9') v = v * 10 + uint64_t(*p++ - '0');
  return p > s;
}

static void skip_line(const char *&p, const char *end) {
  while (p < end && *p != '\n') p++;
  if (p < end) p++;
}

struct Edge {
  NodeID a, b;
  WeightT w;
};

// load reads the edge file into g (arcs both ways, lists sorted by vertex)
// and warc (the same arcs with their weights).
static void load(const char *path, int64_t n, Graph &G) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) { perror(path); exit(1); }
  struct stat st;
  fstat(fd, &st);
  size_t size = st.st_size;
  const char *data = (const char *)mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (data == MAP_FAILED) { perror("mmap"); exit(1); }
  madvise((void *)data, size, MADV_SEQUENTIAL);
  const char *end = data + size, *p = data;
  skip_line(p, end);  // header
  std::vector<Edge> edges;
  edges.reserve(size / 20);
  while (p < end) {
    uint64_t a, b, w = 1;
    if (!parse_u64(p, end, a) || p >= end || *p != ',') { skip_line(p, end); continue; }
    p++;
    if (!parse_u64(p, end, b)) { skip_line(p, end); continue; }
    if (p < end && *p == ',') {
      p++;
      parse_u64(p, end, w);  // the integer part of the weight
    }
    skip_line(p, end);
    if (a >= uint64_t(n) || b >= uint64_t(n)) { fprintf(stderr, "vertex out of range\n"); exit(1); }
    edges.push_back(Edge{NodeID(a), NodeID(b), WeightT(w)});
  }
  munmap((void *)data, size);
  close(fd);
  CSR &g = G.g;
  g.n = n;
  g.off.assign(n + 1, 0);
  for (auto &e : edges) { g.off[e.a + 1]++; g.off[e.b + 1]++; }
  for (int64_t v = 0; v < n; v++) g.off[v + 1] += g.off[v];
  G.warc.resize(g.off[n]);
  std::vector<int64_t> pos(g.off.begin(), g.off.end() - 1);
  for (auto &e : edges) {
    G.warc[pos[e.a]++] = WArc{e.b, e.w};
    G.warc[pos[e.b]++] = WArc{e.a, e.w};
  }
  std::vector<Edge>().swap(edges);
  g.nbr.resize(g.off[n]);
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t v = 0; v < n; v++) {
    std::sort(G.warc.begin() + g.off[v], G.warc.begin() + g.off[v + 1],
              [](const WArc &x, const WArc &y) { return x.v < y.v || (x.v == y.v && x.w < y.w); });
    for (int64_t i = g.off[v]; i < g.off[v + 1]; i++) g.nbr[i] = G.warc[i].v;
  }
}

// hub_order renumbers g's vertices by decreasing degree, ties by id (the
// numbering Quiver's projections use), and sorts the lists again.
static CSR hub_order(const CSR &g) {
  const int64_t n = g.n;
  std::vector<NodeID> order(n), rank(n);
  for (int64_t v = 0; v < n; v++) order[v] = NodeID(v);
  std::stable_sort(order.begin(), order.end(), [&](NodeID a, NodeID b) {
    return g.off[a + 1] - g.off[a] > g.off[b + 1] - g.off[b];
  });
  for (int64_t i = 0; i < n; i++) rank[order[i]] = NodeID(i);
  CSR h;
  h.n = n;
  h.off.assign(n + 1, 0);
  for (int64_t i = 0; i < n; i++) h.off[i + 1] = h.off[i] + (g.off[order[i] + 1] - g.off[order[i]]);
  h.nbr.resize(g.nbr.size());
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t i = 0; i < n; i++) {
    int64_t o = h.off[i];
    for (int64_t j = g.off[order[i]]; j < g.off[order[i] + 1]; j++) h.nbr[o++] = rank[g.nbr[j]];
    std::sort(h.nbr.begin() + h.off[i], h.nbr.begin() + h.off[i + 1]);
  }
  return h;
}

// pagerank runs iters pull iterations (GAP's PageRankPull with its
// tolerance at 0, so every iteration runs). One addition to GAP's kernel:
// the sink mass (the scores of vertices without edges, spread over all
// vertices, as Graphalytics defines PageRank and Quiver computes it), a
// sum over the vertices in the contribution pass that the edge loop does
// not see. With it both programs compute the same scores, which the
// harness checks.
static std::vector<ScoreT> pagerank(const CSR &g, int iters) {
  const int64_t n = g.n;
  const ScoreT init = 1.0f / n, base = (1.0f - kDamp) / n;
  std::vector<ScoreT> scores(n, init), contrib(n, 0);
  for (int it = 0; it < iters; it++) {
    double error = 0, sink = 0;
#pragma omp parallel for reduction(+ : sink)
    for (int64_t v = 0; v < n; v++) {
      int64_t d = g.off[v + 1] - g.off[v];
      contrib[v] = d ? scores[v] / d : 0;
      if (!d) sink += scores[v];
    }
    const ScoreT b = base + kDamp * ScoreT(sink) / n;
#pragma omp parallel for reduction(+ : error) schedule(dynamic, 16384)
    for (int64_t u = 0; u < n; u++) {
      ScoreT total = 0;
      for (int64_t i = g.off[u]; i < g.off[u + 1]; i++) total += contrib[g.nbr[i]];
      ScoreT old = scores[u];
      scores[u] = b + kDamp * total;
      error += std::fabs(scores[u] - old);
    }
    (void)error;
  }
  return scores;
}

// bfs returns each vertex's depth from src, -1 where unreached:
// direction-optimizing, with GAP's alpha 15 and beta 18.
static std::vector<int32_t> bfs(const CSR &g, NodeID src) {
  const int64_t n = g.n, alpha = 15, beta = 18;
  std::vector<int32_t> depth(n, -1);
  std::vector<NodeID> queue{src}, next;
  std::vector<uint8_t> front(n, 0), nfront(n, 0);
  depth[src] = 0;
  int32_t level = 0;
  int64_t edges_to_check = g.off[n], scout = g.off[src + 1] - g.off[src];
  while (!queue.empty()) {
    if (scout > edges_to_check / alpha) {
      // Bottom-up while the frontier is large.
      std::fill(front.begin(), front.end(), 0);
      for (NodeID u : queue) front[u] = 1;
      int64_t awake = int64_t(queue.size()), old;
      do {
        old = awake;
        awake = 0;
#pragma omp parallel for reduction(+ : awake) schedule(dynamic, 1024)
        for (int64_t v = 0; v < n; v++) {
          nfront[v] = 0;
          if (depth[v] >= 0) continue;
          for (int64_t i = g.off[v]; i < g.off[v + 1]; i++) {
            if (front[g.nbr[i]]) {
              depth[v] = level + 1;
              nfront[v] = 1;
              awake++;
              break;
            }
          }
        }
        front.swap(nfront);
        level++;
      } while (awake >= old || awake > n / beta);
      queue.clear();
      for (int64_t v = 0; v < n; v++)
        if (front[v]) queue.push_back(NodeID(v));
      scout = 1;
      continue;
    }
    // Top-down.
    edges_to_check -= scout;
    scout = 0;
    next.clear();
#pragma omp parallel
    {
      std::vector<NodeID> local;
      int64_t sc = 0;
#pragma omp for schedule(dynamic, 64) nowait
      for (size_t q = 0; q < queue.size(); q++) {
        NodeID u = queue[q];
        for (int64_t i = g.off[u]; i < g.off[u + 1]; i++) {
          NodeID v = g.nbr[i];
          int32_t unseen = -1;
          if (depth[v] < 0 && __atomic_compare_exchange_n(&depth[v], &unseen, level + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            local.push_back(v);
            sc += g.off[v + 1] - g.off[v];
          }
        }
      }
#pragma omp critical
      {
        next.insert(next.end(), local.begin(), local.end());
        scout += sc;
      }
    }
    queue.swap(next);
    level++;
  }
  return depth;
}

// sssp returns the least weight of a path from src to each vertex (-1
// where unreached): delta-stepping with per-thread bins.
static std::vector<int64_t> sssp(const Graph &G, NodeID src, int64_t delta) {
  const CSR &g = G.g;
  const int64_t n = g.n;
  const int64_t inf = INT64_MAX;
  std::vector<int64_t> dist(n, inf);
  dist[src] = 0;
  std::vector<NodeID> frontier{src};
  int64_t bin = 0;
  int threads = omp_get_max_threads();
  std::vector<std::vector<std::vector<NodeID>>> bins(threads);
  while (true) {
#pragma omp parallel
    {
      auto &mine = bins[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 64)
      for (size_t q = 0; q < frontier.size(); q++) {
        NodeID u = frontier[q];
        int64_t du = __atomic_load_n(&dist[u], __ATOMIC_RELAXED);
        if (du < delta * bin) continue;  // settled in an earlier bin
        for (int64_t i = g.off[u]; i < g.off[u + 1]; i++) {
          NodeID v = G.warc[i].v;
          int64_t nd = du + G.warc[i].w;
          int64_t old = __atomic_load_n(&dist[v], __ATOMIC_RELAXED);
          while (nd < old) {
            if (__atomic_compare_exchange_n(&dist[v], &old, nd, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
              size_t b = size_t(nd / delta);
              if (b >= mine.size()) mine.resize(b + 1);
              mine[b].push_back(v);
              break;
            }
          }
        }
      }
    }
    // The next bin: the smallest non-empty one from the current on.
    int64_t nextBin = INT64_MAX;
    for (auto &mine : bins)
      for (size_t b = size_t(bin); b < mine.size(); b++)
        if (!mine[b].empty()) {
          nextBin = std::min(nextBin, int64_t(b));
          break;
        }
    if (nextBin == INT64_MAX) break;
    bin = nextBin;
    frontier.clear();
    for (auto &mine : bins)
      if (size_t(bin) < mine.size()) {
        frontier.insert(frontier.end(), mine[bin].begin(), mine[bin].end());
        mine[bin].clear();
      }
  }
  for (auto &d : dist)
    if (d == inf) d = -1;
  return dist;
}

// Afforest's union by linking roots, lower id wins.
static void link(NodeID u, NodeID v, std::vector<NodeID> &comp) {
  NodeID p1 = __atomic_load_n(&comp[u], __ATOMIC_RELAXED), p2 = __atomic_load_n(&comp[v], __ATOMIC_RELAXED);
  while (p1 != p2) {
    NodeID high = std::max(p1, p2), low = std::min(p1, p2);
    NodeID ph = __atomic_load_n(&comp[high], __ATOMIC_RELAXED);
    if (ph == low) break;
    if (ph == high && __atomic_compare_exchange_n(&comp[high], &ph, low, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) break;
    p1 = comp[comp[high]];
    p2 = comp[low];
  }
}

static void compress(std::vector<NodeID> &comp) {
  const int64_t n = int64_t(comp.size());
#pragma omp parallel for schedule(dynamic, 16384)
  for (int64_t v = 0; v < n; v++)
    while (comp[v] != comp[comp[v]]) comp[v] = comp[comp[v]];
}

// cc returns each vertex's component (its smallest-id root): Afforest
// with two neighbour rounds and 1024 samples.
static std::vector<NodeID> cc(const CSR &g) {
  const int64_t n = g.n;
  const int rounds = 2;
  std::vector<NodeID> comp(n);
  for (int64_t v = 0; v < n; v++) comp[v] = NodeID(v);
  for (int r = 0; r < rounds; r++) {
#pragma omp parallel for schedule(dynamic, 16384)
    for (int64_t u = 0; u < n; u++)
      if (g.off[u] + r < g.off[u + 1]) link(NodeID(u), g.nbr[g.off[u] + r], comp);
    compress(comp);
  }
  // The most frequent component among 1024 samples.
  std::vector<NodeID> sample(1024);
  uint64_t x = 88172645463325252ull;
  for (auto &c : sample) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    c = comp[x % uint64_t(n)];
  }
  std::sort(sample.begin(), sample.end());
  NodeID big = sample[0];
  size_t best = 0;
  for (size_t i = 0; i < sample.size();) {
    size_t j = i;
    while (j < sample.size() && sample[j] == sample[i]) j++;
    if (j - i > best) best = j - i, big = sample[i];
    i = j;
  }
#pragma omp parallel for schedule(dynamic, 16384)
  for (int64_t u = 0; u < n; u++) {
    if (comp[u] == big) continue;
    for (int64_t i = g.off[u] + rounds; i < g.off[u + 1]; i++) link(NodeID(u), g.nbr[i], comp);
  }
  compress(comp);
  return comp;
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: gapref EDGES.csv VERTICES PR_ITERATIONS [SSSP_DELTA]\n");
    return 2;
  }
  int64_t n = atoll(argv[2]);
  int iters = atoi(argv[3]);
  int64_t delta = argc == 5 ? atoll(argv[4]) : 1;
  if (n <= 0 || iters < 0 || delta <= 0) {
    fprintf(stderr, "gapref: bad arguments\n");
    return 2;
  }
  Graph G;
  load(argv[1], n, G);
  G.hub = hub_order(G.g);
  printf("ready %lld %lld\n", (long long)n, (long long)G.g.nbr.size());
  fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line)) {
    char cmd[16] = {0}, arg[32] = {0};
    int k = sscanf(line.c_str(), "%15s %31s", cmd, arg);
    std::string c = k >= 1 ? cmd : "";
    long long src = k == 2 ? atoll(arg) : -1;
    double t0 = omp_get_wtime(), a = 0, b = 0, t = 0;
    if (c == "pr" && (k == 1 || std::string(arg) == "hub")) {
      std::vector<ScoreT> s = pagerank(k == 2 ? G.hub : G.g, iters);
      t = omp_get_wtime() - t0;
      for (ScoreT x : s) {
        a += double(x) * x;
        b = std::max(b, double(x));
      }
    } else if ((c == "bfs" || c == "sssp") && k == 2 && src >= 0 && src < n) {
      if (c == "bfs") {
        std::vector<int32_t> d = bfs(G.g, NodeID(src));
        t = omp_get_wtime() - t0;
        for (int32_t x : d)
          if (x >= 0) a++, b += x;
      } else {
        std::vector<int64_t> d = sssp(G, NodeID(src), delta);
        t = omp_get_wtime() - t0;
        for (int64_t x : d)
          if (x >= 0) a++, b += double(x);
      }
    } else if (c == "cc" && k == 1) {
      std::vector<NodeID> comp = cc(G.g);
      t = omp_get_wtime() - t0;
      std::vector<int64_t> size(n, 0);
      for (int64_t v = 0; v < n; v++) size[comp[v]]++;
      for (int64_t v = 0; v < n; v++)
        if (size[v] > 0) a++, b = std::max(b, double(size[v]));
    } else {
      printf("error unknown command\n");
      fflush(stdout);
      continue;
    }
    printf("time %.6f %.9e %.9e\n", t, a, b);
    fflush(stdout);
  }
  return 0;
}
