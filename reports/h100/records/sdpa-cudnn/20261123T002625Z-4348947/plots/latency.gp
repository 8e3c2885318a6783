# latency.gp: rendered by attnlab-report from run.json of run sdpa-cudnn/20261123T002625Z-4348947.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot latency.gp (reads latency.dat, writes latency.png)
set terminal pngcairo size 900,500 enhanced font 'DejaVu Sans,10'
set output 'latency.png'
set multiplot layout 1,2 title 'Phase sdpa-cudnn run 20261123T002625Z-4348947: time per launch, every sample' noenhanced
set style data boxplot
set style boxplot outliers pointtype 7
set style fill solid 0.35 border -1
set boxwidth 0.5
set pointsize 0.35
unset key
set grid ytics lc rgb '#dddddd'
set offsets 0,0,graph 0.05,graph 0.05

set title 'latency 1x8x512x64' noenhanced
set ylabel 'time per launch [us]'
unset logscale y
set autoscale y
set ytics autofreq
set format y '%.0f'
set xtics ('cold' 1, 'warm' 2, 'graph' 3)
set xrange [0.4:3.6]
plot 'latency.dat' index 0 using (1):1 lc rgb '#1f77b4', \
     'latency.dat' index 1 using (2):1 lc rgb '#ff7f0e', \
     'latency.dat' index 2 using (3):1 lc rgb '#2ca02c'

set title 'throughput 16x16x2048x64' noenhanced
set ylabel 'time per launch [us]'
unset logscale y
set autoscale y
set ytics autofreq
set format y '%.0f'
set xtics ('cold' 1, 'warm' 2, 'graph' 3)
set xrange [0.4:3.6]
plot 'latency.dat' index 3 using (1):1 lc rgb '#1f77b4', \
     'latency.dat' index 4 using (2):1 lc rgb '#ff7f0e', \
     'latency.dat' index 5 using (3):1 lc rgb '#2ca02c'
unset multiplot
