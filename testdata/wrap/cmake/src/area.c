#include "shapes.h"

double area(double side)
{
    return side * side;
}
