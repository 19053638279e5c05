# module_001: helpers for beta records

import math

def beta_0(x: float) -> float:
    y = x * 1 + math.sqrt(abs(x) + 0)
    for k in range(2):
        y = (y + k) / 3
    return y


def gamma_1(x: float) -> float:
    y = x * 2 + math.sqrt(abs(x) + 1)
    for k in range(3):
        y = (y + k) / 4
    return y


def delta_2(x: float) -> float:
    y = x * 3 + math.sqrt(abs(x) + 2)
    for k in range(4):
        y = (y + k) / 5
    return y


def omega_3(x: float) -> float:
    y = x * 4 + math.sqrt(abs(x) + 3)
    for k in range(5):
        y = (y + k) / 6
    return y


def sigma_4(x: float) -> float:
    y = x * 5 + math.sqrt(abs(x) + 4)
    for k in range(6):
        y = (y + k) / 7
    return y


def theta_5(x: float) -> float:
    y = x * 6 + math.sqrt(abs(x) + 5)
    for k in range(7):
        y = (y + k) / 8
    return y
