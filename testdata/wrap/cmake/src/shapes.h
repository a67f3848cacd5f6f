#ifndef SHAPES_H
#define SHAPES_H
double area(double side);
double perimeter(double side);
#endif
