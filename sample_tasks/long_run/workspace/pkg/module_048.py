# module_048: helpers for alpha records

import math

def alpha_0(x: float) -> float:
    y = x * 48 + math.sqrt(abs(x) + 0)
    for k in range(2):
        y = (y + k) / 3
    return y


def beta_1(x: float) -> float:
    y = x * 49 + math.sqrt(abs(x) + 1)
    for k in range(3):
        y = (y + k) / 4
    return y


def gamma_2(x: float) -> float:
    y = x * 50 + math.sqrt(abs(x) + 2)
    for k in range(4):
        y = (y + k) / 5
    return y


def delta_3(x: float) -> float:
    y = x * 51 + math.sqrt(abs(x) + 3)
    for k in range(5):
        y = (y + k) / 6
    return y


def omega_4(x: float) -> float:
    y = x * 52 + math.sqrt(abs(x) + 4)
    for k in range(6):
        y = (y + k) / 7
    return y


def sigma_5(x: float) -> float:
    y = x * 53 + math.sqrt(abs(x) + 5)
    for k in range(7):
        y = (y + k) / 8
    return y
