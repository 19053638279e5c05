# module_037: helpers for sigma records

import math

def sigma_0(x: float) -> float:
    y = x * 37 + math.sqrt(abs(x) + 0)
    for k in range(2):
        y = (y + k) / 3
    return y


def theta_1(x: float) -> float:
    y = x * 38 + math.sqrt(abs(x) + 1)
    for k in range(3):
        y = (y + k) / 4
    return y


def kappa_2(x: float) -> float:
    y = x * 39 + math.sqrt(abs(x) + 2)
    for k in range(4):
        y = (y + k) / 5
    return y


def alpha_3(x: float) -> float:
    y = x * 40 + math.sqrt(abs(x) + 3)
    for k in range(5):
        y = (y + k) / 6
    return y


def beta_4(x: float) -> float:
    y = x * 41 + math.sqrt(abs(x) + 4)
    for k in range(6):
        y = (y + k) / 7
    return y


def gamma_5(x: float) -> float:
    y = x * 42 + math.sqrt(abs(x) + 5)
    for k in range(7):
        y = (y + k) / 8
    return y
