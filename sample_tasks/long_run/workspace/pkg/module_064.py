# module_064: helpers for alpha records

import math

def alpha_0(x: float) -> float:
    y = x * 64 + math.sqrt(abs(x) + 0)
    for k in range(2):
        y = (y + k) / 3
    return y


def beta_1(x: float) -> float:
    y = x * 65 + math.sqrt(abs(x) + 1)
    for k in range(3):
        y = (y + k) / 4
    return y


def gamma_2(x: float) -> float:
    y = x * 66 + math.sqrt(abs(x) + 2)
    for k in range(4):
        y = (y + k) / 5
    return y


def delta_3(x: float) -> float:
    y = x * 67 + math.sqrt(abs(x) + 3)
    for k in range(5):
        y = (y + k) / 6
    return y


def omega_4(x: float) -> float:
    y = x * 68 + math.sqrt(abs(x) + 4)
    for k in range(6):
        y = (y + k) / 7
    return y


def sigma_5(x: float) -> float:
    y = x * 69 + math.sqrt(abs(x) + 5)
    for k in range(7):
        y = (y + k) / 8
    return y
