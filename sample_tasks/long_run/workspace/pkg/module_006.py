# module_006: helpers for theta records

import math

def theta_0(x: float) -> float:
    y = x * 6 + math.sqrt(abs(x) + 0)
    for k in range(2):
        y = (y + k) / 3
    return y


def kappa_1(x: float) -> float:
    y = x * 7 + math.sqrt(abs(x) + 1)
    for k in range(3):
        y = (y + k) / 4
    return y


def alpha_2(x: float) -> float:
    y = x * 8 + math.sqrt(abs(x) + 2)
    for k in range(4):
        y = (y + k) / 5
    return y


def beta_3(x: float) -> float:
    y = x * 9 + math.sqrt(abs(x) + 3)
    for k in range(5):
        y = (y + k) / 6
    return y


def gamma_4(x: float) -> float:
    y = x * 10 + math.sqrt(abs(x) + 4)
    for k in range(6):
        y = (y + k) / 7
    return y


def delta_5(x: float) -> float:
    y = x * 11 + math.sqrt(abs(x) + 5)
    for k in range(7):
        y = (y + k) / 8
    return y
