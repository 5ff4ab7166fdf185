"""Slow, obvious reference implementations.

Every fast path in :mod:`snl_numeric` is compared with a twin in this file.
Nothing here is optimised; clarity is the point.
"""

from __future__ import annotations

# --- number mazes ---
# Seed 003's recursive backtracker, for any R x C maze, start and goal.
# Cells are (row, col) tuples; directions are tried up, down, left, right.

_MAZE_DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def maze_moves(maze, cell):
    """Cells reachable from ``cell`` in one move, in direction order."""
    rows, cols = len(maze), len(maze[0])
    r, c = cell
    n = maze[r][c]
    out = []
    for dr, dc in _MAZE_DIRS:
        x, y = r + dr * n, c + dc * n
        if 0 <= x < rows and 0 <= y < cols and (x, y) != cell:
            out.append((x, y))
    return out


def maze_paths(maze, start, goal):
    """Every simple path from ``start`` to ``goal`` (lists of tuples)."""
    found = []
    path = [tuple(start)]
    visited = {tuple(start)}

    def solve(cur):
        if cur == tuple(goal):
            found.append(list(path))
            return
        for nxt in maze_moves(maze, cur):
            if nxt not in visited:
                visited.add(nxt)
                path.append(nxt)
                solve(nxt)
                path.pop()
                visited.remove(nxt)

    solve(tuple(start))
    return found


def maze_corner_paths(maze):
    """Seed 003: paths from each distinct corner to (R // 2, C // 2)."""
    rows, cols = len(maze), len(maze[0])
    corners = dict.fromkeys([(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)])
    out = []
    for corner in corners:
        out.extend(maze_paths(maze, corner, (rows // 2, cols // 2)))
    return out


def maze_shortest_moves(maze, start, goal):
    """Fewest moves from ``start`` to ``goal`` by plain BFS; -1 if none."""
    start, goal = tuple(start), tuple(goal)
    dist = {start: 0}
    queue = [start]
    for cur in queue:
        if cur == goal:
            return dist[cur]
        for nxt in maze_moves(maze, cur):
            if nxt not in dist:
                dist[nxt] = dist[cur] + 1
                queue.append(nxt)
    return -1


def maze_count(maze, start, goal, bound=None):
    """(count, steps) of seed 003's search, stopping once count > bound.

    A step is one call of the recursive ``solve`` (one cell entered).
    """
    start, goal = tuple(start), tuple(goal)
    visited = {start}
    count = steps = 0

    def solve(cur):
        nonlocal count, steps
        steps += 1
        if cur == goal:
            count += 1
            return bound is not None and count > bound
        for nxt in maze_moves(maze, cur):
            if nxt not in visited:
                visited.add(nxt)
                stop = solve(nxt)
                visited.remove(nxt)
                if stop:
                    return True
        return False

    solve(start)
    return count, steps
