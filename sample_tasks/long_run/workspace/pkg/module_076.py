# module_076: helpers for omega records

import math

def omega_0(x: float) -> float:
    y = x * 76 + math.sqrt(abs(x) + 0)
    for k in range(2):
        y = (y + k) / 3
    return y


def sigma_1(x: float) -> float:
    y = x * 77 + math.sqrt(abs(x) + 1)
    for k in range(3):
        y = (y + k) / 4
    return y


def theta_2(x: float) -> float:
    y = x * 78 + math.sqrt(abs(x) + 2)
    for k in range(4):
        y = (y + k) / 5
    return y


def kappa_3(x: float) -> float:
    y = x * 79 + math.sqrt(abs(x) + 3)
    for k in range(5):
        y = (y + k) / 6
    return y


def alpha_4(x: float) -> float:
    y = x * 80 + math.sqrt(abs(x) + 4)
    for k in range(6):
        y = (y + k) / 7
    return y


def beta_5(x: float) -> float:
    y = x * 81 + math.sqrt(abs(x) + 5)
    for k in range(7):
        y = (y + k) / 8
    return y
