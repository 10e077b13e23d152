"""CSPA in NumPy: complementary support-class passive-aggressive under bandit feedback.

Kaneko, Sato, Sugiyama (2019), Algorithm 1 and eq. (19); the rule is written out in plugins/learners/cspa/README.md. Proposes its greedy label; told the
proposal was right, it takes the support-class PA step on it; told it was wrong, it takes the complementary-label
step against it. The same steps as glimpse's C++ `cspa` (plugins/common/include/glimpse/algorithms/
support_class_pa.hpp and complementary_step.hpp), in float64.
"""
import numpy as np


class Cspa:
    """Complementary SPA (NumPy): SPA step when the proposal is right, complementary-label step when wrong"""

    reference = "Kaneko, Sato, Sugiyama, arXiv 2019, Algorithm 1 and eq. (19)"
    accepts = ["correctness"]
    params = {"beta": {"type": "real", "default": 0.1, "above": 0, "at_most": 1,
                       "help": "fraction of the wrong-label loss removed per step"}}

    def __init__(self, params):
        self.beta = params["beta"]

    def reset(self, n, d, K, seed):
        self.W = np.zeros((K, d))
        self.K = K

    def predict(self, x):
        self.scores = self.W @ x
        return self.scores

    def learn(self, x, predicted, proposed, feedback):
        if feedback is None:
            return
        x = x.astype(np.float64)
        squared_norm = float(np.sum(x * x))
        if squared_norm <= 0:
            return
        s = self.scores
        if feedback[1]:  # right: the support-class PA step on the proposed label
            y = proposed
            losses = np.maximum(0.0, 1.0 - s[y] + s)
            losses[y] = 0.0
            # classes with positive loss, largest first (lower label on ties)
            order = sorted((i for i in range(self.K) if losses[i] > 0), key=lambda i: (-losses[i], i))
            if not order:
                return
            prefix, support = 0.0, 0
            while support < len(order) and (support + 1) * losses[order[support]] > prefix:
                prefix += losses[order[support]]
                support += 1
            level = prefix / (support + 1)
            tau = np.zeros(self.K)
            tau[y] = level / squared_norm
            for j in order[:support]:
                tau[j] = -(losses[j] - level) / squared_norm
        else:  # wrong: the proposal is a label it is not (complementary step, margin loss of eq. 4)
            c = proposed
            loss = 1.0 + s[c] - np.max(np.delete(s, c))
            if loss <= 0:
                return
            others = self.beta * loss / (self.K * squared_norm)
            tau = np.full(self.K, others)
            tau[c] = -(self.K - 1) * others
        self.W += np.outer(tau, x)
