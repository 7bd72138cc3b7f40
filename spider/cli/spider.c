/*
 * spider.c — bin/spider: the command in one process (main.h).
 */
#include "main.h"

int main(int argc, char **argv)
{
    return spider_command(argc, argv, NULL);
}
