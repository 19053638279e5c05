# module_050: helpers for gamma records

import math

def gamma_0(x: float) -> float:
    y = x * 50 + math.sqrt(abs(x) + 0)
    for k in range(2):
        y = (y + k) / 3
    return y


def delta_1(x: float) -> float:
    y = x * 51 + math.sqrt(abs(x) + 1)
    for k in range(3):
        y = (y + k) / 4
    return y


def omega_2(x: float) -> float:
    y = x * 52 + math.sqrt(abs(x) + 2)
    for k in range(4):
        y = (y + k) / 5
    return y


def sigma_3(x: float) -> float:
    y = x * 53 + math.sqrt(abs(x) + 3)
    for k in range(5):
        y = (y + k) / 6
    return y


def theta_4(x: float) -> float:
    y = x * 54 + math.sqrt(abs(x) + 4)
    for k in range(6):
        y = (y + k) / 7
    return y


def kappa_5(x: float) -> float:
    y = x * 55 + math.sqrt(abs(x) + 5)
    for k in range(7):
        y = (y + k) / 8
    return y
