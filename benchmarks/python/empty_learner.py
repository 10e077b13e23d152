"""The cheapest Python learner: constant scores, learns nothing. Its rounds/s is the bridge's own cost per round."""
import numpy as np


class Empty:
    """Constant scores, no learning: measures the Python bridge's cost per round"""

    accepts = ["label"]

    def __init__(self, params):
        pass

    def reset(self, n, d, K, seed):
        self.scores = np.zeros(K)

    def predict(self, x):
        return self.scores

    def learn(self, x, predicted, proposed, feedback):
        pass
