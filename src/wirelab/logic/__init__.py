"""Differentiable logic gate networks (Petersen et al. 2022, 2024) and their Boolean circuits."""

from wirelab.logic.discrete import DiscreteLayer, DiscreteLogicNet
from wirelab.logic.gates import COEFFS, NAMES, NUM_GATES, TRUTH

__all__ = ["COEFFS", "NAMES", "NUM_GATES", "TRUTH", "DiscreteLayer", "DiscreteLogicNet"]
