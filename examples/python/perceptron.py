"""Multiclass Perceptron in NumPy: on a mistake, w_y += eta x and w_predicted -= eta x.

The same arithmetic as glimpse's C++ `perceptron` with "precision": "double" (weights and scores in float64, the
row's float32 values widened), so on the same protocol both give the same trace (tests/cli/python_learners.sh).
"""
import numpy as np


class Perceptron:
    """Multiclass Perceptron (NumPy): on a mistake, w_y += eta x and w_predicted -= eta x"""

    reference = "the multiclass Perceptron (plugins/learners/perceptron/README.md)"
    accepts = ["label"]  # the feedback kinds it learns from
    params = {"eta": {"type": "real", "default": 1.0, "above": 0, "help": "step size"}}

    def __init__(self, params):
        self.eta = params["eta"]

    def reset(self, n, d, K, seed):
        self.W = np.zeros((K, d))

    def predict(self, x):
        if isinstance(x, tuple):  # a sparse row: (indices, values)
            indices, values = x
            return self.W[:, indices] @ values
        return self.W @ x  # K scores; glimpse takes their argmax (lowest label on ties)

    def learn(self, x, predicted, proposed, feedback):
        if feedback is None:  # the query rule did not ask
            return
        kind, y = feedback  # ("label", y) or ("noisy_label", y); labels are 0..K-1
        if y == predicted:
            return
        if isinstance(x, tuple):
            indices, values = x
            self.W[y, indices] += self.eta * values
            self.W[predicted, indices] -= self.eta * values
        else:
            self.W[y] += self.eta * x
            self.W[predicted] -= self.eta * x
