# module_099: helpers for delta records

import math

def delta_0(x: float) -> float:
    y = x * 99 + math.sqrt(abs(x) + 0)
    for k in range(2):
        y = (y + k) / 3
    return y


def omega_1(x: float) -> float:
    y = x * 100 + math.sqrt(abs(x) + 1)
    for k in range(3):
        y = (y + k) / 4
    return y


def sigma_2(x: float) -> float:
    y = x * 101 + math.sqrt(abs(x) + 2)
    for k in range(4):
        y = (y + k) / 5
    return y


def theta_3(x: float) -> float:
    y = x * 102 + math.sqrt(abs(x) + 3)
    for k in range(5):
        y = (y + k) / 6
    return y


def kappa_4(x: float) -> float:
    y = x * 103 + math.sqrt(abs(x) + 4)
    for k in range(6):
        y = (y + k) / 7
    return y


def alpha_5(x: float) -> float:
    y = x * 104 + math.sqrt(abs(x) + 5)
    for k in range(7):
        y = (y + k) / 8
    return y
